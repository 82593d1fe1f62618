import { showControls } from '../text/safe-text.js';

// One format for every message (messages/diagnostic.ts); the commands import it from here.
export { formatDiagnostic } from '../messages/diagnostic.js';

/** True when colour may be used: a terminal, and NO_COLOR unset. */
export function useColor(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && !process.env.NO_COLOR;
}

/** `1234567` → `1,234,567`. */
export function num(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * Writes a command's text output, which carries vault text (memory bodies,
 * titles, summaries, fact values, commit subjects): every control character a
 * terminal would act on is made visible first (`showControls`: ESC → `␛`,
 * U+009B → `\x9b`), so a memory cannot clear the screen, write the clipboard
 * (OSC 52) or hide a link (OSC 8), and a person sees that something was there.
 * `--json` output needs no such step: JSON.stringify escapes every control
 * character. `decorate` adds colour after this (`diff`): the only escapes
 * written are memvault's own.
 */
export function writeText(text: string, decorate?: (shown: string) => string): void {
  const shown = showControls(text);
  process.stdout.write(decorate ? decorate(shown) : shown);
}
