import type { Diagnostic } from '../vault/model.js';

/** Formats a diagnostic as `path:line:col severity reason (hint) [rule]`, one line. */
export function formatDiagnostic(d: Diagnostic, prefix = ''): string {
  return `${prefix}${d.path}:${d.line}:${d.column} ${d.severity} ${d.reason}${d.hint ? ` (hint: ${d.hint})` : ''} [${d.rule}]`;
}

/** True when colour may be used: a terminal, and NO_COLOR unset. */
export function useColor(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && !process.env.NO_COLOR;
}

/** `1234567` → `1,234,567`. */
export function num(n: number): string {
  return n.toLocaleString('en-US');
}
