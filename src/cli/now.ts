/**
 * `resolveNow` for commands that start fast: the clock when neither `--now`
 * nor `MEMVAULT_NOW` is given, else `resolveNow` itself (context.ts), loaded
 * only then. Its check of the date loads the calendar code (luxon, ~30 ms of
 * a start), which a search or a session-start hook without a pinned time
 * never needs. Same values and errors as `resolveNow`.
 */
export async function nowOf(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Date> {
  const value = flag ?? env.MEMVAULT_NOW;
  if (value === undefined || (flag === undefined && value === '')) return new Date();
  return (await import('./context.js')).resolveNow(flag, env);
}
