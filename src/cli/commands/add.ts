import path from 'node:path';
import { loadValidConfig } from '../../config/load.js';
import { addMemory } from '../../ingest/add.js';
import { checkDeclaredStream, declareStream } from '../../project/streams.js';
import { describeRedactions } from '../../redact/redact.js';
import { UserError } from '../../util/errors.js';
import type { Importance } from '../../vault/model.js';
import { findRoot, resolveNow } from '../context.js';

/** Flags of `memvault add` as commander parses them. */
export interface AddCommandOptions {
  root?: string;
  title?: string;
  tag?: string[];
  kind?: string;
  importance?: string;
  stream?: string;
  /** `--create-stream`: add an undeclared `--stream` to memory.config.yaml instead of refusing it. */
  createStream?: boolean;
  date?: string;
  /** Commander's `--no-redact` sets this to false. */
  redact?: boolean;
  json?: boolean;
}

const IMPORTANCE = ['low', 'normal', 'high', 'pinned'];

/** `memvault add "text"`: writes one memory (text from the argument, or stdin when there is none or it is `-`) and prints its path. */
export async function addCommand(text: string | undefined, options: AddCommandOptions): Promise<void> {
  if (options.importance !== undefined && !IMPORTANCE.includes(options.importance)) {
    throw new UserError('cli/importance', `--importance \`${options.importance}\` is not one of ${IMPORTANCE.join(', ')}`);
  }
  let body = text;
  if (body === undefined || body === '-') {
    if (process.stdin.isTTY) throw new UserError('add/empty', 'no memory text');
    body = await readStdin();
  }
  const redact = options.redact !== false;
  if (!redact)
    process.stderr.write('warning: --no-redact: the text is written as it is; a secret in it would stay in git history for good\n');
  const root = findRoot(options.root ?? process.cwd());
  if (options.stream !== undefined) {
    // A stream the config does not declare is a typo until the person says otherwise (--create-stream).
    const config = await loadValidConfig(root);
    if (!checkDeclaredStream(config, options.stream, options.createStream === true)) {
      declareStream(root, config, options.stream);
      process.stderr.write(`added stream \`${options.stream}\` to memory.config.yaml (calendar: true, waterfall: false)\n`);
    }
  }
  const result = await addMemory({
    root,
    text: body,
    ...(options.title !== undefined ? { title: options.title } : {}),
    tags: options.tag ?? [],
    ...(options.kind !== undefined ? { kind: options.kind } : {}),
    ...(options.importance !== undefined ? { importance: options.importance as Importance } : {}),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
    ...(options.date !== undefined ? { date: options.date } : {}),
    // The default date is now: MEMVAULT_NOW fixes it (tests), else the wall clock.
    now: resolveNow(undefined),
    redact,
  });
  const shown = path.relative(process.cwd(), result.file) || result.file;
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify(
        { path: shown, vault_path: result.path, id: result.id, stream: result.stream, date: result.date, redactions: result.redactions },
        null,
        2,
      )}\n`,
    );
    return;
  }
  process.stdout.write(`${shown}\n`);
  const redacted = describeRedactions(result.redactions);
  if (redacted) process.stderr.write(`${redacted}\n`);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
