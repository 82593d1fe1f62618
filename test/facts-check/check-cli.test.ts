import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { copyProject, createProject, removeProject, runCli, runCliJson, writeFiles } from '../helpers/project.js';
import { setStateRow, stateRows } from '../helpers/state-store.js';

/**
 * `memvault facts --check` through the real CLI against the fake OpenAI
 * server: pairs found by search, the model's verdicts listed, answers cached
 * per pair of contents (a rerun asks nothing, an edit asks only about its
 * pairs), and the errors a person acts on.
 */
const decision = (day: string, title: string, body: string): string =>
  `---\ndate: ${day}T10:00:00Z\nkind: decision\ntitle: ${title}\n---\n${body}\n`;
const files: Record<string, string> = {
  'vault/main/memories/2026-02-10-billing-db.md': decision(
    '2026-02-10',
    'Billing database',
    'The billing service stores invoices in PostgreSQL; the billing database runs on one primary with a replica.',
  ),
  'vault/main/memories/2026-03-01-billing-db.md': decision(
    '2026-03-01',
    'Billing database engine',
    'The billing service stores invoices in MySQL from now on; the billing database runs on one primary with a replica.',
  ),
  'vault/main/memories/2026-02-12-session-cache.md': decision(
    '2026-02-12',
    'Session cache',
    'Web sessions are cached in Redis with a one hour expiry, keyed by session token.',
  ),
  'vault/main/memories/2026-02-20-session-cache.md': decision(
    '2026-02-20',
    'Session cache eviction',
    'Web sessions cached in Redis are evicted least recently used once the cache is full; one hour expiry stays.',
  ),
  'vault/main/memories/2026-02-15-standup.md': '---\ndate: 2026-02-15T10:00:00Z\n---\nStandup: billing invoices looked fine, Redis too.\n',
};
const verdict = (contradicts: boolean, confidence: number, reason: string): string => JSON.stringify({ contradicts, confidence, reason });

describe('memvault facts --check', () => {
  let server: FakeOpenAI;
  let root: string;
  let config: string;
  beforeAll(async () => {
    server = await startFakeOpenAI();
    config =
      'timezone: UTC\nllm:\n  profile: local\n  fault_retries: 1\n  backoff_ms: 1\n  profiles:\n' +
      `    local:\n      provider: openai\n      base_url: ${server.url}\n      model: judge-model\n`;
    root = createProject(files, config);
  });
  afterAll(async () => {
    removeProject(root);
    await server.close();
  });

  const answerLikeAModel = (): void => {
    server.reset();
    // Wrapped in a code fence, as models do: the verdict is read from the JSON inside.
    const contradiction = `\`\`\`json\n${verdict(true, 0.9, 'PostgreSQL vs MySQL for billing invoices')}\n\`\`\``;
    server.inject({
      fault: { kind: 'reply', text: contradiction },
      match: /PostgreSQL[\s\S]*MySQL|MySQL[\s\S]*PostgreSQL/,
      times: Infinity,
    });
    server.inject({ fault: { kind: 'reply', text: verdict(false, 0.8, 'compatible') }, times: Infinity });
  };

  it('asks about each pair once, lists the contradiction, and a rerun asks nothing', async () => {
    answerLikeAModel();
    const first = await runCliJson(['facts', '--check', '--json'], { cwd: root });
    const asked = server.calls().length;
    expect(first.json.candidates).toBe(4); // the standup note states no decision
    expect(first.json.pairs.asked).toBe(asked);
    expect(asked).toBeGreaterThanOrEqual(2);
    expect(first.json.pairs.cached).toBe(0);
    expect(first.json.contradictions).toEqual([
      {
        a: { id: '2026-02-10-billing-db', path: 'main/memories/2026-02-10-billing-db.md', day: '2026-02-10', title: 'Billing database' },
        b: expect.objectContaining({ path: 'main/memories/2026-03-01-billing-db.md', title: 'Billing database engine' }),
        reason: 'PostgreSQL vs MySQL for billing invoices',
        confidence: 0.9,
        cached: false,
      },
    ]);
    // Both notes, with their places, went to the model.
    const dbPrompt = server.calls().find((call) => call.prompt.includes('MySQL'))!.prompt;
    expect(dbPrompt).toContain('main/memories/2026-02-10-billing-db.md');
    expect(dbPrompt).toContain('PostgreSQL');

    server.reset();
    const second = await runCliJson(['facts', '--check', '--json'], { cwd: root });
    expect(server.calls()).toHaveLength(0);
    expect(second.json.pairs).toMatchObject({ asked: 0, cached: asked });
    expect(second.json.contradictions[0]).toMatchObject({ reason: 'PostgreSQL vs MySQL for billing invoices', cached: true });
    const text = await runCli(['facts', '--check'], { cwd: root });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('1 likely contradiction in');
    expect(text.stdout).toContain('1. main/memories/2026-02-10-billing-db.md (Billing database)');
    expect(text.stdout).toContain('PostgreSQL vs MySQL for billing invoices [confidence 0.90]');
    expect(server.calls()).toHaveLength(0);
  });

  it('an edited memory is asked about again, only in its own pairs', async () => {
    const cacheBefore = stateRows(root, 'facts-check');
    answerLikeAModel();
    const edited = 'vault/main/memories/2026-02-20-session-cache.md';
    writeFiles(root, { [edited]: `${files[edited]}\nReviewed in March: unchanged.\n` });
    const { json } = await runCliJson(['facts', '--check', '--json'], { cwd: root });
    const calls = server.calls();
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(json.pairs.asked).toBe(calls.length);
    expect(json.pairs.cached).toBe(json.pairs.checked - calls.length);
    for (const call of calls) expect(call.prompt).toContain('main/memories/2026-02-20-session-cache.md');
    // The old content's answers are dropped; the others are kept as they were.
    const cacheAfter = stateRows(root, 'facts-check');
    expect(Object.keys(cacheAfter)).toHaveLength(Object.keys(cacheBefore).length);
    expect(Object.keys(cacheAfter)).not.toEqual(Object.keys(cacheBefore));
  });

  it('--max-pairs bounds the requests', async () => {
    const copy = copyProject(root);
    try {
      // Rows that are no answers (damaged, or written by something else): reported, dropped, asked again.
      for (const key of Object.keys(stateRows(copy, 'facts-check'))) setStateRow(copy, 'facts-check', key, '"not an answer"');
      answerLikeAModel();
      const { json, result } = await runCliJson(['facts', '--check', '--max-pairs', '1', '--json'], { cwd: copy });
      expect(server.calls()).toHaveLength(1);
      expect(json.pairs).toMatchObject({ selected: 1, checked: 1, asked: 1 });
      expect(json.pairs.found).toBeGreaterThan(1);
      expect(result.stderr).toContain('fact/check-cache'); // the unreadable cache is reported and replaced
      expect(Object.values(stateRows(copy, 'facts-check'))).toEqual([expect.objectContaining({ judge: expect.any(String) })]);
    } finally {
      removeProject(copy);
    }
  });

  it('a refused key stops at the first pair with a clear message; a 503 is retried', async () => {
    const copy = copyProject(root);
    try {
      for (const key of Object.keys(stateRows(copy, 'facts-check'))) setStateRow(copy, 'facts-check', key, 'null');
      server.reset();
      server.inject({ fault: { kind: 'status', status: 503 }, times: 1 });
      server.inject({ fault: { kind: 'status', status: 401, message: 'invalid api key' }, times: Infinity });
      const result = await runCli(['facts', '--check'], { cwd: copy });
      expect(result.code).toBe(1);
      expect(server.calls()).toHaveLength(2); // the 503 once, then the 401 that stops everything
      expect(result.stderr).toMatch(/facts --check stopped after 0 of \d+ pairs: .* refused the API key \(401\)/);
      expect(result.stderr).toContain('llm/failed');
    } finally {
      removeProject(copy);
    }
  });

  it('without an LLM profile: an error saying how to configure one', async () => {
    const offline = createProject(files);
    try {
      const result = await runCli(['facts', '--check'], { cwd: offline });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('the active LLM profile `summarizer` is the embedded `extractive` summarizer');
      expect(result.stderr).toContain('`provider: openai`');
      expect(result.stderr).toContain('fact/check-no-llm');
      const bad = await runCli(['facts', '--check', '--max-pairs', '0'], { cwd: offline });
      expect(bad.stderr).toContain('--max-pairs `0` is not a positive whole number');
    } finally {
      removeProject(offline);
    }
  });
});
