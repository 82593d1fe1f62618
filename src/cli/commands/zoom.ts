import { cliNumber } from '../../ops/input.js';
import { runOperation } from '../../ops/operation.js';
import { zoomOperation } from '../../ops/zoom.js';
import type { Transcript } from '../../read/transcripts.js';
import { renderZoomMemory, renderZoomSummary, type ZoomResult } from '../../read/zoom.js';
import { cliEnv } from '../ops-env.js';
import { num, writeText } from '../output.js';
import { renderJson } from '../render/json.js';

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

/** `memvault zoom <period>`: the `zoom` operation (src/ops/zoom.ts), the full memories behind a period, read-only. */
export async function zoomCommand(periodText: string | undefined, options: ZoomCommandOptions): Promise<void> {
  const env = await cliEnv(options);
  const { result } = await runOperation(zoomOperation, env, {
    ...(periodText !== undefined ? { period: periodText } : {}),
    ...(options.memories !== undefined ? { memories: options.memories } : {}),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
    ...(options.budget !== undefined ? { budget: cliNumber(options.budget) } : {}),
    ...(options.page !== undefined ? { page: cliNumber(options.page) } : {}),
    ...(options.tier !== undefined ? { tier: options.tier } : {}),
    ...(options.transcripts ? { transcripts: true } : {}),
  });
  if (options.json) {
    process.stdout.write(renderJson(result));
    return;
  }
  // `--transcripts`: the full session behind each distilled coding-agent memory of the page, after the memory.
  const transcripts = new Map<string, Transcript>();
  for (const memory of result.memories) if (memory.transcript) transcripts.set(memory.path, memory.transcript);
  writeText(renderZoom(result as ZoomResult, periodText, options, transcripts));
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
