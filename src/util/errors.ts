import { hintFor, type RuleId, ruleUrl } from '../messages/catalogue.js';
import { type Diagnostic, type Facts, MESSAGE_SOURCE, type Place, type Severity } from '../messages/message.js';

/** What a throw site may add besides the rule, the reason and the facts. */
export interface ErrorOptions {
  /** A hint more specific than the catalogue's, for this one site. */
  hint?: string;
  /** Problems of files behind this error (each with its place): the CLI prints them, one per line, before the error. */
  diagnostics?: readonly Diagnostic[];
  /** The file and place the error is about, when it has one. */
  place?: Place;
  cause?: unknown;
}

/**
 * The base of memvault's errors: a message of the one message type (reason,
 * rule, hint, severity, place, url) that was thrown. A `UserError` is one a
 * person fixes (the CLI exits 1); any other error reaching the CLI is
 * internal (exit 2). Subclasses exist only where code catches them by type.
 */
export class MemvaultError extends Error {
  /** Stable rule id, e.g. `lock/busy` (catalogued, see docs/errors.md). */
  readonly rule: string;
  readonly hint: string | undefined;
  readonly severity: Severity = 'error';
  readonly source = MESSAGE_SOURCE;
  readonly diagnostics: Diagnostic[];
  readonly place: Place | undefined;

  constructor(rule: RuleId, reason: string, facts?: Facts, options: ErrorOptions = {}) {
    super(reason, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'MemvaultError';
    this.rule = rule;
    this.hint = options.hint ?? hintFor(rule, facts);
    this.diagnostics = [...(options.diagnostics ?? [])];
    this.place = options.place;
  }

  /** What happened (vfile-message's `reason`): the error's message. */
  get reason(): string {
    return this.message;
  }

  /** The rule's docs (vfile-message's `url`). */
  get url(): string {
    return ruleUrl(this.rule);
  }
}

/**
 * The one way modules fail for anything a person can fix (bad input, a busy
 * vault, an over-budget critical section): name the rule and pass the facts;
 * the hint comes from the catalogue. The CLI entry prints it with its hint
 * and rule and exits 1.
 *
 * @example
 *   throw new UserError('cli/number', `--limit \`${value}\` is not a positive whole number`, { flag: '--limit', example: 20 });
 */
export class UserError extends MemvaultError {
  constructor(rule: RuleId, reason: string, facts?: Facts, options?: ErrorOptions);
  /** @deprecated Name the rule first and let the catalogue give the hint: `new UserError(rule, reason, facts)`. */
  constructor(message: string, hint: string | undefined, rule: string);
  constructor(first: string, second: string | undefined, third?: Facts | string, options?: ErrorOptions) {
    if (typeof third === 'string') super(third as RuleId, first, undefined, { hint: second ?? '' });
    else super(first as RuleId, second ?? '', third, options);
    this.name = 'UserError';
  }
}
