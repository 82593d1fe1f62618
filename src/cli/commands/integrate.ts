import { integrate } from '../../integrate/agents.js';
import { findRoot } from '../context.js';

export interface IntegrateCommandOptions {
  root?: string;
  dryRun?: boolean;
  json?: boolean;
  command?: string;
}

/**
 * `memvault integrate <agent>`: memvault's MCP server, session hooks and
 * instructions, merged into the agent's project files (src/integrate/), then
 * what to do next for the agent to pick them up.
 */
export async function integrateCommand(agent: string, options: IntegrateCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const result = integrate(root, agent, {
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(options.command ? { command: options.command } : {}),
  });
  if (options.json) {
    const files = result.files.map((f) => ({
      path: f.path,
      changed: f.changed,
      added: f.added,
      kept: f.kept,
      ...(options.dryRun ? { content: f.path.endsWith('.json') ? JSON.parse(f.after || '{}') : f.after } : {}),
    }));
    const note = result.note ? { note: result.note } : {};
    const report = { agent: result.agent, dry_run: result.dryRun, files, ...note, next_step: result.nextStep };
    // Not renderJson: `content` is each file as written (Cursor's `sessionStart`, Gemini's `mcpServers`), data whose keys
    // must stay as the agent spells them; the report's own keys are snake_case already.
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const lines: string[] = [];
  for (const file of result.files) {
    if (options.dryRun) lines.push(`${file.path}${file.changed ? '' : ' (unchanged)'}:`, file.after.replace(/\n$/, ''), '');
    else
      lines.push(
        file.changed
          ? `${file.path}: added ${file.added.join(', ')}${file.kept.length ? `; kept ${file.kept.join(', ')}` : ''}`
          : `${file.path}: unchanged (memvault already registered)`,
      );
  }
  if (options.dryRun) lines.push(`--dry-run: nothing written; \`memvault integrate ${result.agent}\` writes these files.`);
  const changed = result.files.some((file) => file.changed);
  if (result.note) lines.push('', `Note: ${result.note}`);
  lines.push('', `Next: ${changed || options.dryRun ? '' : 'nothing changed; if the agent does not use memvault yet, '}${result.nextStep}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
