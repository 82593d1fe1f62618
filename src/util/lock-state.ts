import type { UserError } from './errors.js';

/**
 * Whether this process lost the build lock it holds (see `lock.ts`). Kept apart from `lock.ts` so that
 * `atomic.ts` can refuse writes without loading proper-lockfile.
 */
let lost: UserError | undefined;

export function setLockLost(error: UserError): void {
  lost = error;
}

export function clearLockLost(): void {
  lost = undefined;
}

/** Throws the `lock/lost` error once the build lock was lost: a second build may be writing the same files now. */
export function assertLockHeld(): void {
  if (lost) throw lost;
}
