import { pinnedNow } from './pinned-now.js';

export { pinnedNow } from './pinned-now.js';

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
