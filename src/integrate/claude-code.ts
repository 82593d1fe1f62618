import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import { writeFileAtomic } from '../util/atomic.js';

/**
 * `memvault integrate claude-code`: registers the MCP server in the
 * project's `.mcp.json` and the session hooks in `.claude/settings.json`.
 * The plan is pure (`planClaudeCode`: the files as they are → the files as
 * they should be, and what was added or kept); `integrateClaudeCode` reads
 * and writes. Whatever is there is kept: other servers, other hooks, other
 * settings, and a `memvault` server or hook a person already set up. An
 * entry counts as memvault's when its command runs `… hook <event>` of
 * memvault, so a second run adds nothing.
 */

type Json = Record<string, unknown>;

export interface HookCommand {
  type: 'command';
  command: string;
  timeout?: number;
}

export interface MatcherGroup {
  matcher?: string;
  hooks: HookCommand[];
}

/** Claude Code's hook events memvault uses, the matcher of each (none: every occurrence) and the command's timeout in seconds. */
export const CLAUDE_CODE_HOOKS = [
  { event: 'SessionStart', hook: 'session-start', matcher: 'startup|resume|clear|compact', timeout: 30 },
  { event: 'PreCompact', hook: 'pre-compact', matcher: undefined, timeout: 60 },
  { event: 'SessionEnd', hook: 'session-end', matcher: undefined, timeout: 60 },
  // Before Read, Edit and Write: the memories citing the file (src/hooks/pre-tool.ts); a short timeout, it answers in milliseconds.
  { event: 'PreToolUse', hook: 'pre-tool', matcher: 'Read|Edit|MultiEdit|Write', timeout: 5 },
] as const;

export interface FilePlan {
  /** Path relative to the project. */
  path: string;
  before: Json | undefined;
  after: Json;
  added: string[];
  kept: string[];
  changed: boolean;
}

/**
 * The two files as they should be. `command` is how memvault is started
 * (default `memvault`; e.g. `npx memvault`).
 *
 * @example
 *   planClaudeCode(undefined, { hooks: { Stop: [...] } }).settings.after.hooks // { Stop: [...], SessionStart: [...], PreCompact: [...], SessionEnd: [...] }
 */
export function planClaudeCode(
  mcp: Json | undefined,
  settings: Json | undefined,
  command = 'memvault',
): { mcp: FilePlan; settings: FilePlan } {
  const words = command.trim().split(/\s+/);
  // .mcp.json
  const servers = asObject(mcp?.mcpServers, '.mcp.json', 'mcpServers');
  const mcpPlan: FilePlan = { path: '.mcp.json', before: mcp, after: { ...mcp }, added: [], kept: [], changed: false };
  if (servers.memvault !== undefined) mcpPlan.kept.push('mcpServers.memvault');
  else {
    mcpPlan.after.mcpServers = { ...servers, memvault: { command: words[0], args: [...words.slice(1), 'mcp'] } };
    mcpPlan.added.push('mcpServers.memvault');
  }
  mcpPlan.kept.push(
    ...Object.keys(servers)
      .filter((name) => name !== 'memvault')
      .map((name) => `mcpServers.${name}`),
  );
  mcpPlan.changed = mcpPlan.added.length > 0;

  // .claude/settings.json
  const hooks = asObject(settings?.hooks, '.claude/settings.json', 'hooks');
  const nextHooks: Json = { ...hooks };
  const settingsPlan: FilePlan = {
    path: '.claude/settings.json',
    before: settings,
    after: { ...settings },
    added: [],
    kept: [],
    changed: false,
  };
  for (const spec of CLAUDE_CODE_HOOKS) {
    const groups = hooks[spec.event];
    if (groups !== undefined && !Array.isArray(groups))
      throw new UserError('integrate/settings', `.claude/settings.json: hooks.${spec.event} is not a list`);
    const list = (groups ?? []) as MatcherGroup[];
    if (list.some((group) => (group?.hooks ?? []).some((h) => isMemvaultHook(h?.command, spec.hook)))) {
      settingsPlan.kept.push(`hooks.${spec.event} (memvault hook ${spec.hook})`);
      continue;
    }
    const group: MatcherGroup = {
      ...(spec.matcher ? { matcher: spec.matcher } : {}),
      hooks: [{ type: 'command', command: `${command.trim()} hook ${spec.hook}`, timeout: spec.timeout }],
    };
    nextHooks[spec.event] = [...list, group];
    settingsPlan.added.push(`hooks.${spec.event}`);
  }
  settingsPlan.kept.push(
    ...Object.keys(hooks)
      .filter(
        (event) =>
          Array.isArray(hooks[event]) &&
          (hooks[event] as MatcherGroup[]).some((g) => !(g?.hooks ?? []).every((h) => isMemvaultHook(h?.command))),
      )
      .map((event) => `hooks.${event} (other hooks)`),
  );
  settingsPlan.after.hooks = nextHooks;
  settingsPlan.changed = settingsPlan.added.length > 0;
  return { mcp: mcpPlan, settings: settingsPlan };
}

/** True for a hook command that runs `memvault … hook <event>` (any event when none is given). */
export function isMemvaultHook(command: unknown, event?: string): boolean {
  if (typeof command !== 'string' || !/memvault/.test(command)) return false;
  return new RegExp(`\\bhook\\s+${event ?? '(session-start|pre-compact|session-end|pre-tool)'}\\b`).test(command);
}

function asObject(value: unknown, file: string, key: string): Json {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UserError('integrate/settings', `${file}: \`${key}\` is not an object`);
  return value as Json;
}

/** Reads a JSON file of the project; undefined when missing. A file that is not a JSON object is a `UserError` (it is never overwritten). */
export function readJsonObject(root: string, relative: string): Json | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(root, relative), 'utf8');
  } catch {
    return undefined;
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UserError('integrate/json', `${relative} is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UserError('integrate/json', `${relative} does not hold a JSON object`);
  return value as Json;
}

export interface IntegrateResult {
  dryRun: boolean;
  files: FilePlan[];
}

/** Plans, then (unless `dryRun`) writes the files that change, atomically. */
export function integrateClaudeCode(root: string, options: { dryRun?: boolean; command?: string } = {}): IntegrateResult {
  const plan = planClaudeCode(readJsonObject(root, '.mcp.json'), readJsonObject(root, '.claude/settings.json'), options.command);
  const files = [plan.mcp, plan.settings];
  if (!options.dryRun)
    for (const file of files) {
      if (!file.changed) continue;
      const target = path.join(root, file.path);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileAtomic(target, `${JSON.stringify(file.after, null, 2)}\n`);
    }
  return { dryRun: options.dryRun ?? false, files };
}
