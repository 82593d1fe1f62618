import { describe, expect, it } from 'vitest';
import { renderJson, snakeKey } from '../../src/cli/render/json.js';

describe('--json: one casing', () => {
  it('turns camelCase keys into snake_case, at every depth, arrays included', () => {
    const text = renderJson({ dryRun: true, stats: { workerParses: 3, stages: { 'parse.markdown': 12 } }, streams: [{ inputTokens: 5 }] });
    expect(JSON.parse(text)).toEqual({
      dry_run: true,
      stats: { worker_parses: 3, stages: { 'parse.markdown': 12 } },
      streams: [{ input_tokens: 5 }],
    });
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('leaves keys that are data alone: paths, ids, rule names, stage names, snake_case and capitalised words', () => {
    for (const key of ['main/memories/a.md', '2026-02-10-auth', 'fact/check-cache', 'parse.markdown', 'next_step', 'README', 'A', 'x'])
      expect(snakeKey(key)).toBe(key);
    expect(snakeKey('historyCopies')).toBe('history_copies');
    expect(snakeKey('nextAt')).toBe('next_at');
  });

  it('prints one line for a stream of events', () => {
    expect(renderJson({ type: 'rebuild', outputsWritten: 2 }, { oneLine: true })).toBe('{"type":"rebuild","outputs_written":2}\n');
  });
});
