/**
 * The one way modules fail: throw a `UserError` for anything a person can fix
 * (bad input, a busy vault, an over-budget critical section). The CLI entry
 * prints it as one line with a hint and exits 1; any other error is internal
 * (exit 2).
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    /** Stable id for scripts, e.g. `lock/busy`. */
    readonly rule = 'user',
  ) {
    super(message);
    this.name = 'UserError';
  }
}
