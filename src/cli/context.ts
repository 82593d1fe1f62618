import { isValidDay } from '../time/periods.js';
import { UserError } from '../util/errors.js';
import { pinnedNow } from './pinned-now.js';

// Every command's project is also where its writes must stay (util/inside.ts).
export { enterProject as findRoot } from '../config/file.js';

/** `--now` / `MEMVAULT_NOW`, else the clock. Tests and CI pin it so builds are reproducible. */
export function resolveNow(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): Date {
  const value = pinnedNow(flag, env);
  if (value === undefined) return new Date();
  const date = new Date(value);
  // `new Date` rolls 2026-02-30 over to March: check the calendar date itself.
  if (Number.isNaN(date.getTime()) || !isValidDay(value.slice(0, 10))) {
    throw new UserError('cli/now', `\`${value}\` is not an ISO 8601 datetime`);
  }
  return date;
}
