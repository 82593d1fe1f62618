import { isValidDay } from '../../time/periods.js';
import { UserError } from '../../util/errors.js';
import { parseDuration } from '../../watch/paths.js';
import { VaultWatcher, type WatchEvent } from '../../watch/watcher.js';
import { findRoot, resolveNow } from '../context.js';
import { formatDiagnostic } from '../output.js';
import { counted } from '../../text/plural.js';
import { renderJson } from '../render/json.js';

/** Flags of `memvault watch` as commander parses them. */
export interface WatchCommandOptions {
  root?: string;
  now?: string;
  force?: boolean;
  through?: string;
  debounce?: string;
  commitEvery?: string;
  json?: boolean;
}

/**
 * `memvault watch`: rebuilds on every change until Ctrl-C (SIGINT) or
 * SIGTERM. One line per rebuild on stdout (`--json`: one JSON object per
 * line); problems of changed files on stderr as `path:line:col …`. The first
 * signal stops after the rebuild in progress; a second one ends the process
 * at once (writes are atomic, so no file is left half-written).
 */
export async function watchCommand(options: WatchCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  // A fixed clock only when asked for: otherwise every rebuild uses the time it runs at.
  const now = options.now !== undefined || process.env.MEMVAULT_NOW ? resolveNow(options.now) : undefined;
  if (options.through !== undefined && !isValidDay(options.through))
    throw new UserError('cli/through', `--through \`${options.through}\` is not a date`);
  const debounceMs =
    options.debounce === undefined
      ? undefined
      : parseDuration(/^\d+$/.test(options.debounce) ? `${options.debounce}ms` : options.debounce, '--debounce');
  const commitEveryMs = options.commitEvery === undefined ? undefined : parseDuration(options.commitEvery, '--commit-every');
  const print = options.json ? printJson : printLine;

  const watcher = new VaultWatcher({
    root,
    ...(now ? { now } : {}),
    force: options.force ?? false,
    ...(options.through ? { through: options.through } : {}),
    ...(debounceMs !== undefined ? { debounceMs } : {}),
    ...(commitEveryMs !== undefined ? { commitEveryMs } : {}),
    onEvent: (event) => {
      if (!failedToStart || event.type !== 'stopped') print(event);
    },
  });
  // A watch that could not start (an invalid config, a busy lock) says only why, as every command does; no "stopped" line.
  let failedToStart = false;
  try {
    await watcher.start();
  } catch (error) {
    failedToStart = true;
    await watcher.stop();
    throw error;
  }
  await new Promise<void>((resolve, reject) => {
    const onSignal = (): void => {
      // Removing the handlers lets a second Ctrl-C end the process the default way.
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      if (!options.json) process.stderr.write('stopping after the current rebuild…\n');
      watcher.stop().then(resolve, reject);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

function printLine(event: WatchEvent): void {
  const time = clock(event.type === 'ready' ? new Date().toISOString() : event.at);
  switch (event.type) {
    case 'rebuild': {
      for (const d of event.diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
      const invalid = event.diagnostics.filter((d) => d.severity === 'error').length;
      const outputs = event.outputs.length > 0 ? event.outputs.join(', ') : 'no output changed';
      const kept = event.diagnostics.some((d) => d.reason.includes('last good version')) ? ' (last good version kept)' : '';
      const problems = invalid > 0 ? `; ${invalid} invalid file(s), listed above${kept}` : '';
      process.stdout.write(`${time} ${event.trigger} → ${outputs}${problems} (${event.ms} ms)\n`);
      return;
    }
    case 'ready':
      process.stdout.write(`${time} watching ${event.vault}/ and ${event.config} (${counted(event.files, 'file')}; Ctrl-C to stop)\n`);
      return;
    case 'error':
      for (const d of event.diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
      process.stderr.write(`${time} ${event.trigger}: ${event.message}${event.hint ? ` (hint: ${event.hint})` : ''}\n`);
      return;
    case 'waiting':
    case 'note':
      process.stderr.write(`${time} ${event.message}\n`);
      return;
    case 'stopped':
      process.stderr.write(`${time} stopped after ${event.rebuilds} rebuild(s)\n`);
      return;
  }
}

function printJson(event: WatchEvent): void {
  const { report: _report, ...rest } = event.type === 'rebuild' ? event : { ...event, report: undefined };
  process.stdout.write(renderJson(rest, { oneLine: true }));
}

/** `HH:MM:SS` of an ISO instant on the local wall clock. */
function clock(iso: string): string {
  const date = new Date(iso);
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}
