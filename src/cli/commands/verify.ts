import path from 'node:path';
import { runCitationStep, verifyRepoOf } from '../../citations/build-step.js';
import { fixFor, isStaleCitation } from '../../citations/state.js';
import { openCitationStore, type CitingMemory } from '../../citations/store.js';
import { openVault } from '../../read/vault.js';
import { findRoot, resolveNow } from '../context.js';
import { writeText } from '../output.js';

export interface VerifyCommandOptions {
  root?: string;
  stream?: string;
  all?: boolean;
  full?: boolean;
  now?: string;
  json?: boolean;
}

/** One memory as `memvault verify` lists it. */
export interface VerifiedMemory extends CitingMemory {
  path: string;
  /** What a person can do about it: edit, mark `valid_to:`, or `memvault resolve`. */
  fix?: string;
}

/**
 * `memvault verify`: checks every memory's citations against the repository
 * now (what changed since the last check, or everything with `--full`), saves
 * the result for the read commands and the hook, and lists the memories whose
 * citations are not verified, stale first, each with the fix. Writes nothing
 * in the vault.
 */
export async function verifyCommand(options: VerifyCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const vault = await openVault(root);
  const streams = [...vault.loaded.state.streams.values()].filter((s) => !options.stream || s.name === options.stream);
  const step = await runCitationStep({
    root,
    vaultDir: vault.vaultDir,
    streams: vault.loaded.state.streams.values(),
    now: resolveNow(options.now),
    repo: verifyRepoOf(root, vault.config),
    ...(options.full ? { full: true } : {}),
  });
  const store = openCitationStore(path.join(root, '.memvault'));
  const verification = store.readVerification();
  const memories = store.readMemories()?.all() ?? {};
  const wanted = new Set(streams.map((s) => s.name));
  const listed: VerifiedMemory[] = [];
  for (const [memoryPath, memory] of Object.entries(memories)) {
    if (!wanted.has(memory.stream)) continue;
    if (!options.all && memory.state === 'verified') continue;
    if (!options.all && memory.citations.every((c) => c.state === 'verified' || c.state === 'unchecked')) continue;
    listed.push({ path: memoryPath, ...memory, ...(memory.stale ? { fix: fixFor(memoryPath, memory) } : {}) });
  }
  listed.sort((a, b) => Number(b.stale) - Number(a.stale) || (a.day < b.day ? 1 : a.day > b.day ? -1 : a.path < b.path ? -1 : 1));
  const report = step.report;
  if (options.json) {
    writeText(
      `${JSON.stringify(
        {
          repo: verification?.repo ?? null,
          head: verification?.head ?? null,
          checked_at: verification?.checkedAt ?? null,
          stats: report ?? null,
          stale: listed.filter((m) => m.stale).length,
          memories: listed,
        },
        null,
        2,
      )}\n`,
    );
    return;
  }
  if (!report || !verification) {
    writeText(
      'memvault verify: no citations to check (no memory cites a path, commit or branch, or the vault is not in a git repository)\n',
    );
    return;
  }
  const lines = [
    `Citations checked at ${verification.head.slice(0, 7)} (${verification.checkedAt}): ${report.citations} citation(s) of ` +
      `${Object.keys(memories).length} memories, ${report.recheckedCitations} asked again; ${report.stale} stale.`,
  ];
  if (listed.length === 0) lines.push('', 'Every citation holds.');
  for (const m of listed) {
    lines.push('', `${m.stale ? 'STALE' : m.state} ${m.path}${m.title ? ` (${m.title})` : ''}, ${m.day}`);
    for (const c of m.citations.filter((c) => options.all || c.state !== 'verified'))
      lines.push(`  ${isStaleCitation(c) ? '!' : '-'} ${c.kind} \`${c.target}\`: ${c.state}${c.detail ? `, ${c.detail}` : ''}`);
    if (m.fix) lines.push(`  fix: ${m.fix}`);
  }
  writeText(`${lines.join('\n')}\n`);
}
