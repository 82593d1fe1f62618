import { hintFor, type RuleId, ruleSpec } from './catalogue.js';
import type { Diagnostic, Facts, Place, Severity } from './message.js';
import { oneLine, showControls } from '../text/safe-text.js';

/** What a site may add to a message besides the rule, the place and the reason. */
export interface MessageOptions {
  /** Fill the `{name}` placeholders of the rule's hint. */
  facts?: Facts;
  /** A hint more specific than the catalogue's, for this one place (a parser that knows what it expected). */
  hint?: string;
  /** When it differs from the catalogue's (a cut-off last line of a transcript is only a warning). */
  severity?: Severity;
}

/**
 * A diagnostic for a file: severity and hint from the catalogue.
 *
 * @example
 *   diagnostic('memory/no-date', { path: 'main/memories/x.md', line: 1, column: 1 }, 'memory has no date');
 */
export function diagnostic(rule: RuleId, place: Place, reason: string, options: MessageOptions = {}): Diagnostic {
  const hint = options.hint ?? hintFor(rule, options.facts);
  const severity = options.severity ?? severityOf(rule);
  // Key order is the order index.json and the --json reports have always written.
  return {
    path: place.path,
    line: place.line,
    column: place.column,
    ...(place.end ? { end: place.end } : {}),
    severity,
    reason,
    ...(hint !== undefined ? { hint } : {}),
    rule,
  };
}

function severityOf(rule: string): Severity {
  return ruleSpec(rule)?.severity ?? 'error';
}

/** A diagnostic as one line: `path:line:col severity reason (hint: …) [rule]`. */
export function formatDiagnostic(d: Diagnostic, prefix = ''): string {
  // A reason may quote vault text (a fact's value, a file name): one line, its control characters shown, never acted on.
  const line = `${d.path}:${d.line}:${d.column} ${d.severity} ${d.reason}${d.hint ? ` (hint: ${d.hint})` : ''} [${d.rule}]`;
  return `${prefix}${showControls(oneLine(line))}`;
}

/** What the CLI prints of a failed command: a `UserError`'s fields. */
export interface FailureMessage {
  message: string;
  hint?: string | undefined;
  rule: string;
  diagnostics?: readonly Diagnostic[];
}

/**
 * A failed command as the CLI prints it: the file problems behind it one per
 * line, then `memvault: reason`, the hint and the rule.
 *
 * @example
 *   formatFailure({ message: 'another build is running (pid 42)', hint: 'wait for it to finish', rule: 'lock/busy' });
 *   // 'memvault: another build is running (pid 42)\n  hint: wait for it to finish [lock/busy]\n'
 */
export function formatFailure(error: FailureMessage): string {
  const lines = (error.diagnostics ?? []).map((d) => formatDiagnostic(d));
  if (error.hint) lines.push(`memvault: ${error.message}`, `  hint: ${error.hint} [${error.rule}]`);
  else lines.push(`memvault: ${error.message} [${error.rule}]`);
  return `${lines.join('\n')}\n`;
}
