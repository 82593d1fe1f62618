import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { shorten } from '../../src/text/shorten.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { createProject, removeProject } from '../helpers/project.js';

describe('shorten', () => {
  it('cuts at a word boundary with an ellipsis, and leaves short text as it is', () => {
    expect(shorten('Moved the billing database to MySQL', 20)).toBe('Moved the billing…');
    expect(shorten('Short  text\n here', 80)).toBe('Short text here');
    // A first word longer than half the room is cut inside: there is no boundary worth keeping.
    expect(shorten('Supercalifragilisticexpialidocious words', 12)).toBe('Supercalifr…');
    // Punctuation before the cut is dropped, not left dangling before the ellipsis.
    expect(shorten('We moved, then we tested it all', 11)).toBe('We moved…');
  });

  it('for any text: at most max characters; when cut, a prefix of whole words plus …', () => {
    const word = fc.stringMatching(/^[a-z]{1,12}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 30 }), fc.integer({ min: 4, max: 120 }), (words, max) => {
        const text = words.join(' ');
        const out = shorten(text, max);
        expect(out.length).toBeLessThanOrEqual(Math.max(max, 0));
        if (text.length <= max) {
          expect(out).toBe(text);
          return;
        }
        expect(out.endsWith('…')).toBe(true);
        const kept = out.slice(0, -1);
        expect(text.startsWith(kept)).toBe(true);
        // Cut at a boundary, unless the last boundary is in the first half of the room.
        if (text[kept.length] !== ' ') expect(kept.lastIndexOf(' ')).toBeLessThanOrEqual(max / 2);
      }),
    );
  });
});

describe('rollup label of an untitled memory', () => {
  let server: FakeOpenAI;
  let root: string;
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(async () => {
    removeProject(root);
    await server.close();
  });

  it('is its first sentence cut at a word, never mid-word, in what the model is sent', async () => {
    const sentence =
      'Investigated the intermittent checkout failures in the payments gateway and traced them to connection pool exhaustion.';
    const config =
      'timezone: UTC\nllm:\n  profile: local\n  profiles:\n' +
      `    local:\n      provider: openai\n      base_url: ${server.url}\n      model: fake-model\n`;
    // Enough text on the day that the daily is a summary the model writes, not a merge of the memories as they are.
    const filler = 'The team reviewed dashboards, compared latency percentiles and wrote down follow-up work for the sprint. '.repeat(12);
    const files: Record<string, string> = {
      'vault/main/memories/2026-02-10-checkout.md': `---\ndate: 2026-02-10T10:00:00Z\n---\n${sentence} ${filler}\n`,
    };
    for (let hour = 11; hour < 19; hour++)
      files[`vault/main/memories/2026-02-10-note-${hour}.md`] =
        `---\ndate: 2026-02-10T${hour}:00:00Z\ntitle: Note ${hour}\n---\n${filler}\n`;
    root = createProject(files, config);
    // Checked by what the server received: built in-process.
    await build({ root, now: new Date('2026-02-11T09:00:00Z') });
    const daily = server.calls().find((call) => call.prompt.includes('### 10:00'));
    expect(daily, server.calls()[0]?.prompt).toBeDefined();
    const heading = daily!.prompt.split('\n').find((line) => line.startsWith('### 10:00'))!;
    expect(heading).toBe('### 10:00 Investigated the intermittent checkout failures in the payments gateway and… (note)');
  });
});
