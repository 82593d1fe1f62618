/**
 * The moment `--now` or `MEMVAULT_NOW` pins, as given (an empty `MEMVAULT_NOW` pins nothing), or undefined for the clock.
 * Kept free of the calendar code so that commands which start fast can ask it.
 */
export function pinnedNow(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = flag ?? env.MEMVAULT_NOW;
  return value === undefined || (flag === undefined && value === '') ? undefined : value;
}

/**
 * `resolveNow` for commands that start fast: the clock when nothing is pinned,
 * else `resolveNow` itself (context.ts), loaded only then. Its check of the
 * date loads the calendar code (luxon, ~30 ms of a start), which a search or a
 * session-start hook without a pinned time never needs. Same values and errors.
 */
export async function nowOf(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Date> {
  if (pinnedNow(flag, env) === undefined) return new Date();
  return (await import('./context.js')).resolveNow(flag, env);
}
