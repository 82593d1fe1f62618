import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinPromptsDir, validatePrompt } from '../../src/llm/prompts.js';

/**
 * The LLM prompts ask for the structure the extractive summarizer writes for
 * coding-agent sessions (src/llm/extractive/sessions.ts, session-rollup.ts):
 * per session goal, done, decision and next with the identifiers kept; weeks
 * and above by work thread, busiest first; and for conversations the concrete
 * facts over filler.
 */

const user = (name: string): string =>
  validatePrompt(readFileSync(path.join(builtinPromptsDir(), `${name}.yaml`), 'utf8'), `${name}.yaml`).prompt!.user;

describe('prompts for agent sessions and conversations', () => {
  it('ask a daily for goal, done, decision and next per session, with ids, commits, branches and files kept', () => {
    const daily = user('daily');
    expect(daily).toContain('## Sessions');
    for (const line of ['- Goal:', '- Done:', '- Decision:', '- Next:']) expect(daily).toContain(line);
    expect(daily).toMatch(/work-item id \(`ABC-123`, `#123`\), PR, commit hash, branch and file path/);
    expect(daily).toMatch(/every session's goal before giving any session more room/);
  });

  it('ask weeklies, monthlies and the long term for work threads, every thread named', () => {
    for (const name of ['weekly', 'monthly', 'longterm']) {
      const text = user(name);
      expect(text, name).toContain('## Work threads');
      expect(text, name).toMatch(/<N> sessions/);
      expect(text, name).toMatch(/every thread named|Name every thread/);
    }
    expect(user('weekly')).toMatch(/busiest threads \(most sessions\) the most room/);
  });

  it('ask every calendar tier to keep concrete facts of conversations over filler', () => {
    for (const name of ['daily', 'weekly', 'monthly', 'longterm'])
      expect(user(name), name).toMatch(/concrete facts \(names, places, dates, numbers/);
  });
});
