import { integrateClaudeCode } from '../../integrate/claude-code.js';
import { UserError } from '../../util/errors.js';
import { findRoot } from '../context.js';

export interface IntegrateCommandOptions {
  root?: string;
  dryRun?: boolean;
  json?: boolean;
  command?: string;
}

/** `memvault integrate claude-code`: the MCP server and session hooks, merged into the project's Claude Code files. */
export async function integrateCommand(agent: string, options: IntegrateCommandOptions): Promise<void> {
  if (agent !== 'claude-code') throw new UserError('integrate/agent', `unknown agent \`${agent}\``);
  const root = findRoot(options.root ?? process.cwd());
  const result = integrateClaudeCode(root, {
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(options.command ? { command: options.command } : {}),
  });
  if (options.json) {
    const files = result.files.map((f) => ({
      path: f.path,
      changed: f.changed,
      added: f.added,
      kept: f.kept,
      ...(options.dryRun ? { content: f.after } : {}),
    }));
    process.stdout.write(`${JSON.stringify({ dry_run: result.dryRun, files }, null, 2)}\n`);
    return;
  }
  const lines: string[] = [];
  for (const file of result.files) {
    if (options.dryRun) lines.push(`${file.path}${file.changed ? '' : ' (unchanged)'}:`, JSON.stringify(file.after, null, 2), '');
    else
      lines.push(
        file.changed
          ? `${file.path}: added ${file.added.join(', ')}${file.kept.length ? `; kept ${file.kept.join(', ')}` : ''}`
          : `${file.path}: unchanged (memvault already registered)`,
      );
  }
  if (options.dryRun) lines.push('--dry-run: nothing written');
  process.stdout.write(`${lines.join('\n')}\n`);
}
