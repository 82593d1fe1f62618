/**
 * The moment `--now` or `MEMVAULT_NOW` pins, as given (an empty `MEMVAULT_NOW` pins nothing), or undefined for the clock.
 * Kept free of the calendar code so that commands which start fast can ask it.
 */
export function pinnedNow(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = flag ?? env.MEMVAULT_NOW;
  return value === undefined || (flag === undefined && value === '') ? undefined : value;
}
