/**
 * Test-only fault injection. With `MEMVAULT_TEST_CRASH_AFTER=<point>[:<n>]`
 * in the environment, the process kills itself with SIGKILL (no cleanup, no
 * `finally`, like a power cut or an OOM kill) the n-th time (default 1st) it
 * passes the named point. Points: `archive` (after the archive moves),
 * `write` (after each file a build writes), `commit` (objects written, branch
 * not yet moved), `commit-ref` (branch moved, git index not yet updated),
 * `store-commit` (a state store transaction done, not yet committed).
 * Without the variable this is a no-op; nothing else reads it.
 */

const spec = parseSpec(process.env.MEMVAULT_TEST_CRASH_AFTER);
let passes = 0;

export function crashPoint(name: string): void {
  if (!spec || spec.point !== name) return;
  passes++;
  if (passes === spec.after) process.kill(process.pid, 'SIGKILL');
}

function parseSpec(value: string | undefined): { point: string; after: number } | undefined {
  if (!value) return undefined;
  const [point, count] = value.split(':');
  const after = count === undefined ? 1 : Number(count);
  return point && Number.isInteger(after) && after > 0 ? { point, after } : undefined;
}
