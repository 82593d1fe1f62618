import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinPromptsDir, loadPrompts, PROMPT_NAMES, promptFingerprint, renderTemplate, validatePrompt } from '../../src/llm/prompts.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-prompts-'));
  dirs.push(root);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

const builtin = (name: string): string => readFileSync(path.join(builtinPromptsDir(), `${name}.yaml`), 'utf8');

describe('built-in prompts', () => {
  it('ship one valid file per prompt', () => {
    for (const name of PROMPT_NAMES) {
      const { prompt, errors } = validatePrompt(builtin(name), `${name}.yaml`);
      expect(errors, name).toEqual([]);
      expect(prompt?.user, name).toContain('{{sources}}');
    }
  });

  it('carry the rules of each tier (daily sections, weekly merging, monthly sections), with limits from the budget (never hard-coded)', () => {
    const daily = validatePrompt(builtin('daily'), 'daily.yaml').prompt!;
    for (const section of ['Accomplished', 'Decisions', 'Current state', 'Context to preserve']) expect(daily.user).toContain(section);
    const weekly = validatePrompt(builtin('weekly'), 'weekly.yaml').prompt!;
    expect(weekly.user).toMatch(/merge duplicate topics/i);
    expect(weekly.user).toMatch(/every decision with its rationale/i);
    expect(weekly.user).toMatch(/unresolved bug or blocker with its current status/i);
    expect(weekly.user).toMatch(/debugging play-by-play and dead-end tangents/i);
    const monthly = validatePrompt(builtin('monthly'), 'monthly.yaml').prompt!;
    for (const section of ['Milestones', 'Decisions in effect', 'Skills', 'Persistent blockers', 'Direction changes'])
      expect(monthly.user).toContain(section);
    for (const name of PROMPT_NAMES) {
      const prompt = validatePrompt(builtin(name), name).prompt!;
      expect(prompt.user, name).not.toMatch(/\b\d{3,}\s*tokens\b/);
      expect(prompt.retry.join('\n'), name).not.toMatch(/\b\d{3,}\s*tokens\b/);
    }
    expect(weekly.retry.at(-1)).toMatch(/^CRITICAL:/);
    expect(weekly.completion.prompt).toContain('# Memories:');
    expect(weekly.completion.prompt).toContain('# Summary (first-person perspective, I/me/my, no meta-commentary');
    expect(weekly.completion.prompt.trimEnd().endsWith('>')).toBe(true);
    expect(weekly.completion.stop).toEqual(['\n#']);
  });
});

describe('validatePrompt', () => {
  it('points YAML errors at line and column', () => {
    const { errors } = validatePrompt('system: ok\nuser: [unclosed\n', 'prompts/weekly.yaml');
    expect(errors[0]).toMatchObject({ path: 'prompts/weekly.yaml', rule: 'prompt/yaml', line: 3 });
  });

  it('points schema errors at the key', () => {
    const { errors } = validatePrompt('system: ok\nuser: "{{sources}}"\nretries: [a]\n', 'prompts/weekly.yaml');
    expect(errors).toEqual([
      expect.objectContaining({ line: 3, column: 1, rule: 'prompt/schema', reason: expect.stringContaining('`retries`') }),
    ]);
    const missing = validatePrompt('system: ok\n', 'p.yaml').errors;
    expect(missing[0]?.reason).toContain('`user`');
    const wrongType = validatePrompt('system: ok\nuser: "{{sources}}"\nretry: 3\n', 'p.yaml').errors;
    expect(wrongType[0]).toMatchObject({ line: 3, column: 8, rule: 'prompt/schema' });
  });

  it('points an unknown variable at the placeholder itself', () => {
    const text = 'system: You summarize.\nuser: |\n  Summarize {{period}}.\n  Budget: {{max_tokenz}} tokens.\n  {{sources}}\n';
    const { errors } = validatePrompt(text, 'prompts/daily.yaml');
    expect(errors).toEqual([
      expect.objectContaining({ line: 4, column: 11, rule: 'prompt/variable', reason: expect.stringContaining('{{max_tokenz}}') }),
    ]);
  });

  it('requires {{sources}} in the user message and {{missing}} in keep', () => {
    const { errors } = validatePrompt('system: s\nuser: Summarize.\nkeep: Keep them.\n', 'p.yaml');
    expect(errors.map((e) => e.reason)).toEqual([expect.stringContaining('{{sources}}'), expect.stringContaining('{{missing}}')]);
  });
});

describe('loadPrompts', () => {
  it('takes a project override for one tier and the built-ins for the rest', () => {
    const root = project({ 'prompts/weekly.yaml': 'system: Be brief.\nuser: "Week {{period}}:\\n{{sources}}"\n' });
    const { prompts, errors, warnings } = loadPrompts({ projectDir: path.join(root, 'prompts'), root });
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(prompts.get('weekly')).toMatchObject({ origin: 'project', file: 'prompts/weekly.yaml' });
    expect(prompts.get('weekly')?.prompt.system).toBe('Be brief.');
    expect(prompts.get('daily')?.origin).toBe('built-in');
    expect(prompts.size).toBe(PROMPT_NAMES.length);
  });

  it('reports a broken override with its project path, and a file name it does not know', () => {
    const root = project({ 'prompts/weekly.yaml': 'system: x\nuser: "{{nope}} {{sources}}"\n', 'prompts/weeky.yaml': 'system: x\n' });
    const { errors, warnings } = loadPrompts({ projectDir: path.join(root, 'prompts'), root });
    expect(errors).toEqual([expect.objectContaining({ path: 'prompts/weekly.yaml', line: 2, column: 8, rule: 'prompt/variable' })]);
    expect(warnings).toEqual([expect.objectContaining({ path: 'prompts/weeky.yaml', rule: 'prompt/unknown-file' })]);
  });

  it('works without a project prompts folder', () => {
    const root = project({});
    expect(loadPrompts({ projectDir: path.join(root, 'prompts'), root }).errors).toEqual([]);
  });
});

describe('promptFingerprint', () => {
  const base = validatePrompt(builtin('weekly'), 'w').prompt!;
  it('changes with what is sent and not with comments', () => {
    const withComment = validatePrompt(`# a new comment\n${builtin('weekly')}`, 'w').prompt!;
    expect(promptFingerprint(withComment, 'chat')).toBe(promptFingerprint(base, 'chat'));
    const edited = validatePrompt(builtin('weekly').replace('Merge duplicate topics', 'Merge repeated topics'), 'w').prompt!;
    expect(promptFingerprint(edited, 'chat')).not.toBe(promptFingerprint(base, 'chat'));
  });
  it('ignores the other mode’s template', () => {
    const edited = validatePrompt(builtin('weekly').replace('# Memories:', '# My memories:'), 'w').prompt!;
    expect(promptFingerprint(edited, 'chat')).toBe(promptFingerprint(base, 'chat'));
    expect(promptFingerprint(edited, 'completion')).not.toBe(promptFingerprint(base, 'completion'));
  });
});

it('renderTemplate fills variables and empties unknown ones', () => {
  expect(renderTemplate('Week {{ period }}: {{x}}.', { period: '2026-W07' })).toBe('Week 2026-W07: .');
});
