import { collectFacts } from '../../facts/collect.js';
import { planResolution, type Keep } from '../../facts/resolve.js';
import { openVault } from '../../read/vault.js';
import { todayIn } from '../../time/periods.js';
import { writeFileAtomic } from '../../util/atomic.js';
import { UserError } from '../../util/errors.js';
import { readVaultFile } from '../../vault/scan.js';
import { findRoot, resolveNow } from '../context.js';
import { writeText } from '../output.js';
import { contradictionJson, renderResolution } from '../render/facts.js';
import { renderJson } from '../render/json.js';

export interface ResolveCommandOptions {
  root?: string;
  keep?: string;
  note?: string;
  dryRun?: boolean;
  now?: string;
  json?: boolean;
}

/**
 * `memvault resolve <id> --keep a|b|both`: records a person's decision about a
 * contradiction in the memories' frontmatter. A normal edit: the next build
 * commits it; nothing is deleted.
 */
export async function resolveCommand(id: string, options: ResolveCommandOptions): Promise<void> {
  const keep = options.keep;
  if (keep !== 'a' && keep !== 'b' && keep !== 'both') {
    throw new UserError('fact/keep', `--keep \`${keep ?? ''}\` is not a, b or both`);
  }
  const root = findRoot(options.root ?? process.cwd());
  const vault = await openVault(root);
  const now = resolveNow(options.now);
  const report = collectFacts([...vault.loaded.state.streams.values()].flatMap((stream) => stream.memories));
  const contradiction = report.contradictions.find((candidate) => candidate.id === id);
  if (!contradiction) {
    const open = report.contradictions.map((candidate) => candidate.id);
    const known = open.length > 0 ? `open now: ${open.slice(0, 10).join(', ')}` : 'there are none open';
    throw new UserError('fact/unknown-contradiction', `no open contradiction \`${id}\``, { known });
  }
  const plan = planResolution(contradiction, keep as Keep, options.note, todayIn(now, vault.config.timezone));
  // Every edit is computed before any file is written: a file that cannot be edited leaves all of them as they were.
  const writes = plan.edits.map((edit) => {
    const read = readVaultFile(vault.vaultDir, edit.path);
    if (!read.ok) throw new UserError('fact/frontmatter', `${edit.path} cannot be read (${read.diagnostic.reason})`, {});
    return { file: `${vault.vaultDir}/${edit.path}`, text: edit.apply(read.bytes.toString('utf8')) };
  });
  if (!options.dryRun) for (const write of writes) writeFileAtomic(write.file, write.text);
  if (options.json) {
    const edits = plan.edits.map((edit) => ({ path: edit.path, change: edit.change }));
    process.stdout.write(renderJson({ contradiction: contradictionJson(contradiction), keep, edits, written: !options.dryRun }));
    return;
  }
  writeText(renderResolution(plan, options.dryRun === true));
}
