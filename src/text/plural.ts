/**
 * Counts as a person reads them: `1 memory`, `2 memories`, `0 files`,
 * `1,234 documents`. Every count the CLI and its messages print goes through
 * here, so none says "1 memories".
 */

/** The noun for `n` of it: `singular` for exactly 1, `plural` (default: `singular` + s) otherwise. */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return n === 1 ? singular : pluralForm;
}

/** `n` (with thousands separators) and its noun: `counted(1, 'memory', 'memories')` → `1 memory`. */
export function counted(n: number, singular: string, pluralForm?: string): string {
  return `${n.toLocaleString('en-US')} ${plural(n, singular, pluralForm)}`;
}
