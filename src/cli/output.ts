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
