import path from 'node:path';
import { addOperation } from '../../ops/add.js';
import { runOperation } from '../../ops/operation.js';
import { describeRedactions } from '../../redact/redact.js';
import { UserError } from '../../util/errors.js';
import { cliEnv } from '../ops-env.js';
import { renderJson } from '../render/json.js';

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

/**
 * `memvault add "text"`: the `add` operation (src/ops/add.ts), one memory
 * (text from the argument, or stdin when there is none or it is `-`); prints
 * its path.
 */
export async function addCommand(text: string | undefined, options: AddCommandOptions): Promise<void> {
  let body = text;
  if (body === undefined || body === '-') {
    if (process.stdin.isTTY) throw new UserError('add/empty', 'no memory text');
    body = await readStdin();
  }
  const redact = options.redact !== false;
  if (!redact)
    process.stderr.write('warning: --no-redact: the text is written as it is; a secret in it would stay in git history for good\n');
  const env = await cliEnv({ ...(options.root !== undefined ? { root: options.root } : {}) });
  const { result, detail } = await runOperation(addOperation, env, {
    text: body,
    ...(options.title !== undefined ? { title: options.title } : {}),
    tags: options.tag ?? [],
    ...(options.kind !== undefined ? { kind: options.kind } : {}),
    ...(options.importance !== undefined ? { importance: options.importance } : {}),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
    ...(options.createStream ? { create_stream: true } : {}),
    ...(options.date !== undefined ? { date: options.date } : {}),
    ...(redact ? {} : { redact: false }),
  });
  if (detail?.declared)
    process.stderr.write(`added stream \`${detail.declared}\` to memory.config.yaml (calendar: true, waterfall: false)\n`);
  if (options.json) {
    process.stdout.write(renderJson(result));
    return;
  }
  process.stdout.write(`${path.relative(process.cwd(), detail!.file) || detail!.file}\n`);
  const redacted = describeRedactions(result.redactions);
  if (redacted) process.stderr.write(`${redacted}\n`);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
