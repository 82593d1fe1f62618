import type { UncommittedChanges } from '../../project/uncommitted.js';

/** `memvault status` lines for the vault's uncommitted changes (at most `shown` paths of each kind); none when there are none. */
export function renderUncommitted(changes: UncommittedChanges | undefined, shown = 5): string[] {
  if (!changes || changes.memvault.length + changes.other.length === 0) return [];
  const lines = ['uncommitted in the vault:'];
  const list = (files: readonly string[]): string[] => [
    ...files.slice(0, shown).map((file) => `    ${file}`),
    ...(files.length > shown ? [`    … ${files.length - shown} more`] : []),
  ];
  if (changes.memvault.length > 0) {
    lines.push(
      `  ${changes.memvault.length} file(s) memvault wrote or moved; commit them with \`${changes.fix}\``,
      ...list(changes.memvault),
    );
  }
  if (changes.other.length > 0) {
    lines.push(
      `  ${changes.other.length} other change(s) (memories, hand edits); a build commits a memory with the summaries made from it, or \`${changes.fixOther}\``,
      ...list(changes.other),
    );
  }
  return lines;
}
