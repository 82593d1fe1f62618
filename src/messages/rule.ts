import type { Severity } from './message.js';

/**
 * One catalogue entry: what a rule means and what to do about it. A throw
 * site names the rule and passes the facts (`{name}` placeholders of `hint`);
 * the hint lives here, not at the throw.
 */
export interface RuleSpec {
  /** One line: what the rule is about (the heading in docs/errors.md). */
  title: string;
  /** The severity memvault reports it with (`error` stops the command or leaves the file out). */
  severity: Severity;
  /** What to do, with `{name}` placeholders the throw site fills from its facts. */
  hint: string;
  /** Why it happens, for docs/errors.md (markdown). */
  docs?: string;
}

/** A group of rules, keyed by rule id (`area/name`). */
export type RuleGroup = Readonly<Record<string, RuleSpec>>;
