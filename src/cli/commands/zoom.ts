import { parseNumberRange, parsePeriod } from '../../read/period-query.js';
import { openVault, pickStream } from '../../read/vault.js';
import { type Transcript, transcriptOf } from '../../read/transcripts.js';
import { renderZoomMemory, renderZoomSummary, zoom, type ZoomResult } from '../../read/zoom.js';
import { recordSources } from '../../usage/log.js';
import { UserError } from '../../util/errors.js';
import { findRoot, resolveNow } from '../context.js';
import { num, writeText } from '../output.js';

export interface ZoomCommandOptions {
  root?: string;
  stream?: string;
  budget?: string;
  page?: string;
  tier?: string;
  memories?: string;
  now?: string;
  transcripts?: boolean;
  json?: boolean;
}

/** `memvault zoom <period>`: the full memories behind a period, read-only. */
export async function zoomCommand(periodText: string | undefined, options: ZoomCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  if (periodText === undefined && options.memories === undefined) {
    const hint = 'e.g. memvault zoom 2026-W07, memvault zoom yesterday, memvault zoom --memories 65..128';
    throw new UserError('read/period', 'zoom needs a period or --memories', {}, { hint });
  }
  const tier = options.tier;
  if (tier !== undefined && !['daily', 'weekly', 'monthly'].includes(tier))
    throw new UserError('read/tier', `--tier \`${tier}\` is not daily, weekly or monthly`);
  const budget = positive(options.budget, '--budget');
  const page = positive(options.page, '--page');
  const memoryRange = options.memories === undefined ? undefined : parseNumberRange(options.memories);
  const vault = await openVault(root);
  const period =
    periodText === undefined ? undefined : parsePeriod(periodText, { now: resolveNow(options.now), zone: vault.config.timezone });
  const stream = pickStream(vault, options.stream);
  const result = zoom(vault, {
    stream,
    ...(period ? { period } : {}),
    ...(memoryRange ? { memoryRange } : {}),
    ...(budget ? { budget } : {}),
    ...(page ? { page } : {}),
    ...(tier ? { tier: tier as 'daily' } : {}),
  });
  const served = [...result.memories, ...result.summaries].map((item) => item.path);
  recordSources(root, result.stream, served, 'cli:zoom', resolveNow(options.now));
  // `--transcripts`: the full session behind each distilled coding-agent memory of the page, after the memory.
  const transcripts = new Map<string, Transcript>();
  if (options.transcripts) {
    for (const item of result.memories) {
      const memory = stream.memories.find((candidate) => candidate.path === item.path);
      const transcript = memory && transcriptOf(vault.vaultDir, memory);
      if (transcript) transcripts.set(item.path, transcript);
    }
  }
  if (options.json) {
    const memories = result.memories.map((item) => ({
      ...item,
      ...(transcripts.has(item.path) ? { transcript: transcripts.get(item.path) } : {}),
    }));
    process.stdout.write(`${JSON.stringify({ ...result, memories }, null, 2)}\n`);
  } else writeText(renderZoom(result, periodText, options, transcripts));
}

function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UserError('cli/number', `${flag} \`${value}\` is not a positive whole number`, { flag, example: 2000 });
  return n;
}

/** The text form: a header, the items of the page, then how to page on. */
export function renderZoom(
  result: ZoomResult,
  asked: string | undefined,
  options: ZoomCommandOptions,
  transcripts: ReadonlyMap<string, Transcript> = new Map(),
): string {
  const what = result.period
    ? `${result.period.label} (${result.period.start} to ${result.period.end})`
    : `memories ${result.memory_range!.from}..${result.memory_range!.to}`;
  const lines = [`# Zoom: ${what}, stream \`${result.stream}\``, ''];
  if (result.covering.length > 0) {
    lines.push('Summaries covering this period:');
    for (const s of result.covering)
      lines.push(
        `- ${s.tier} ${s.period}: \`${s.path}\` (${s.sources.length} ${plural(s.sources.length, s.tier === 'daily' ? 'memory' : 'source')})`,
      );
    lines.push('');
  }
  if (result.total.items === 0) {
    lines.push(result.showing === 'memories' ? 'No memories in this period.' : `No ${result.showing} summary covers this period.`);
    return `${lines.join('\n')}\n`;
  }
  for (const m of result.memories) {
    lines.push(
      renderZoomMemory(m) + (m.summarized_in.length > 0 ? `Summarized in: ${m.summarized_in.map((p) => `\`${p}\``).join(', ')}\n` : ''),
    );
    const transcript = transcripts.get(m.path);
    if (transcript) lines.push(`#### Full transcript (\`${transcript.path}\`)\n\n${transcript.text}\n`);
  }
  for (const s of result.summaries) lines.push(renderZoomSummary(s));
  const { page } = result;
  const noun = result.showing === 'memories' ? 'memories' : 'summaries';
  if (result.truncated)
    lines.push(`(\`${result.truncated}\` is larger than --budget ${page.budget} and was cut; read the file for all of it)`);
  if (page.pages > 1) {
    const args = [
      asked ? quoteArg(asked) : '',
      options.memories ? `--memories ${options.memories}` : '',
      options.tier ? `--tier ${options.tier}` : '',
    ];
    const next =
      page.page < page.pages
        ? `; next: memvault zoom ${args.filter(Boolean).join(' ')} --budget ${page.budget} --page ${page.page + 1}`
        : '';
    lines.push(
      `Page ${page.page} of ${page.pages} (${num(page.tokens)} tokens); ${page.items_left} ${noun} (${num(page.tokens_left)} tokens) left${next}`,
    );
  } else lines.push(`${result.total.items} ${noun}, ${num(result.total.tokens)} tokens.`);
  return `${lines.join('\n')}\n`;
}

function quoteArg(text: string): string {
  return /^[\w.:-]*$/.test(text) ? text : `"${text}"`;
}

function plural(n: number, noun: string): string {
  return n === 1 ? noun : noun.endsWith('y') ? `${noun.slice(0, -1)}ies` : `${noun}s`;
}
