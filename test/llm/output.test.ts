import { describe, expect, it } from 'vitest';
import { cleanOutput } from '../../src/llm/output.js';

describe('cleanOutput', () => {
  it('leaves a clean answer alone', () => {
    const body = '## Accomplished\n\n- Fixed the login bug (`auth.ts`).\n- Shipped v2.1.';
    expect(cleanOutput(body, 'chat')).toEqual({ body, notes: [] });
  });

  it.each([
    ['Sure! Here is a summary of the memories:\n\n- Fixed the bug.', '- Fixed the bug.'],
    ['Sure!\nHere is the summary:\n- Fixed the bug.', '- Fixed the bug.'],
    ["Here's a concise summary of the day:\n\n## Done\n\n- Fixed the bug.", '## Done\n\n- Fixed the bug.'],
    ['Certainly. Below is the weekly summary.\n\n- Fixed the bug.', '- Fixed the bug.'],
    ['**Here is the summary:**\n\n- Fixed the bug.', '- Fixed the bug.'],
    ["I've summarized the memories below:\n- Fixed the bug.", '- Fixed the bug.'],
  ])('strips opening meta-commentary: %j', (input, expected) => {
    const out = cleanOutput(input, 'chat');
    expect(out.body).toBe(expected);
    expect(out.notes).toContain('opening meta-commentary');
  });

  it('strips a closing offer', () => {
    const out = cleanOutput('- Fixed the bug.\n\nLet me know if you want more detail!', 'chat');
    expect(out.body).toBe('- Fixed the bug.');
    expect(out.notes).toEqual(['closing meta-commentary']);
  });

  it('keeps content that merely starts like chatter', () => {
    const text = 'Here the team decided to keep Postgres because of the JSON support.\n\n- Shipped v2.';
    expect(cleanOutput(text, 'chat').body).toBe(text);
    expect(cleanOutput('- Sure enough, the cache was stale.', 'chat').body).toBe('- Sure enough, the cache was stale.');
  });

  it('removes injected frontmatter anywhere and every fence line', () => {
    const out = cleanOutput(
      '---\nmemvault: summary\ntier: hacked\n---\n- Fixed the bug.\n---\nreview: []\n---\n- Shipped it.\n\n---\n\n- Tail.',
      'chat',
    );
    expect(out.body).toBe('- Fixed the bug.\n- Shipped it.\n\n- Tail.');
    expect(out.body).not.toMatch(/^---$/m);
    expect(out.body).not.toContain('memvault:');
    expect(out.notes).toEqual(expect.arrayContaining(['frontmatter', 'frontmatter fence']));
  });

  it('keeps list items between rules (not YAML) but drops the rules', () => {
    const out = cleanOutput('- One.\n---\n- Decision: use Postgres.\n---\n- Two.', 'chat');
    expect(out.body).toBe('- One.\n- Decision: use Postgres.\n- Two.');
  });

  it('unwraps a fenced answer, drops reasoning blocks and a title of its own', () => {
    expect(cleanOutput('```markdown\n# Weekly summary\n\n- Fixed it.\n```', 'chat').body).toBe('- Fixed it.');
    const out = cleanOutput('<think>The user wants a summary. Let me think.</think>\n\n- Fixed it.', 'chat');
    expect(out.body).toBe('- Fixed it.');
    expect(out.notes).toContain('reasoning block');
  });

  it('completion mode drops the `>` quote markers its prompt ends with', () => {
    expect(cleanOutput(' I fixed the login bug.\n> I shipped v2.', 'completion').body).toBe('I fixed the login bug.\nI shipped v2.');
  });

  it('an answer of chatter only is empty', () => {
    expect(cleanOutput('Sure! Here is the summary:', 'chat').body).toBe('');
    expect(cleanOutput('---\nmemvault: summary\n---\n', 'chat').body).toBe('');
    expect(cleanOutput('   \n', 'chat').body).toBe('');
  });
});
