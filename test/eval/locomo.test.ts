import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { conversationText, convertSample, parseLocomoDate, turnLine, type LocomoSample } from '../../scripts/eval/locomo.js';
import {
  addTally,
  answerRetention,
  containsAnswer,
  emptyTally,
  evidenceIds,
  evidenceRecall,
  evidenceTokens,
  isScorable,
  normalizeText,
  rates,
  recallTokens,
} from '../../scripts/eval/metrics.js';
import { lastTokens, renderTables, SOURCES, type Totals } from '../../scripts/eval/report.js';
import { countTokens } from '../../src/util/tokens.js';
import { parseMemoryFile } from '../../src/vault/memory-file.js';

/**
 * The LoCoMo evaluation's converter and measures, on a tiny hand-written
 * sample in LoCoMo's format (test/fixtures/locomo-sample.json). The real
 * dataset is never needed by the tests.
 */

const samples = JSON.parse(readFileSync(new URL('../fixtures/locomo-sample.json', import.meta.url), 'utf8')) as LocomoSample[];
const conversation = convertSample(samples[0]!, 1);

describe('LoCoMo converter', () => {
  it('parses session times into UTC datetimes and rejects anything else', () => {
    expect(parseLocomoDate('1:56 pm on 8 May, 2023')).toBe('2023-05-08T13:56:00Z');
    expect(parseLocomoDate('12:06 am on 11 November, 2022')).toBe('2022-11-11T00:06:00Z');
    expect(parseLocomoDate('12:30 pm on 1 January, 2024')).toBe('2024-01-01T12:30:00Z');
    expect(parseLocomoDate('10:04 am on 31 February, 2023')).toBeUndefined();
    expect(parseLocomoDate('yesterday')).toBeUndefined();
  });

  it('makes one stream with one memory file per session, at the session date, in order', () => {
    expect(conversation.stream).toBe('conv-1');
    expect(conversation.speakers).toEqual(['Ana', 'Ben']);
    expect(conversation.sessions.map((s) => s.path)).toEqual([
      'vault/conv-1/memories/2023-05-08-session-01.md',
      'vault/conv-1/memories/2023-06-21-session-02.md',
      'vault/conv-1/memories/2023-07-03-session-03.md',
    ]);
    // The build runs one minute after the last session started: that session is today's raw memory.
    expect(conversation.now).toBe('2023-07-03T10:05:00Z');
    expect(conversation.qa).toHaveLength(6);
  });

  it('writes memory files the vault parser accepts, one paragraph per turn, speakers and image captions kept', () => {
    const first = conversation.sessions[0]!;
    const parsed = parseMemoryFile(
      Buffer.from(first.file),
      { path: first.path, stream: 'conv-1', location: 'memories', relativeId: 'x' },
      'UTC',
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.content.memory.date).toBe('2023-05-08T13:56:00Z');
    expect(parsed.content.memory.day).toBe('2023-05-08');
    expect(parsed.content.memory.kind).toBe('session');
    expect(parsed.content.body.split('\n\n')).toEqual([
      'Ana: Hey Ben! Good to see you!',
      'Ben: Hi Ana! I adopted a greyhound called Juniper yesterday.',
      'Ana: Congrats! I started pottery classes at the Riverside studio. [image: a photo of a blue bowl on a table]',
      'Ben: Juniper loves the beach already.',
    ]);
    expect(first.turns.get('D1:3')).toBe(
      'Ana: Congrats! I started pottery classes at the Riverside studio. [image: a photo of a blue bowl on a table]',
    );
    expect(turnLine({ speaker: 'Ben', dia_id: 'D9:9', text: '  Look   at this! ' })).toBe('Ben: Look at this!');
  });

  it('never uses the model-made fields of the dataset', () => {
    expect(conversationText(conversation)).not.toContain('model-made');
    for (const session of conversation.sessions) expect(session.file).not.toContain('model-made');
  });
});

describe('LoCoMo measures', () => {
  it('scores only non-adversarial questions with answers of at most 5 words; numbers are answers too', () => {
    expect(samples[0]!.qa.map(isScorable)).toEqual([true, true, true, true, false, false]);
  });

  it('finds answers case-insensitively, ignoring markdown emphasis and line breaks', () => {
    const text = normalizeText('- **Sun 05-07** Ben adopted a greyhound called\n**Juniper** on 7 May 2023.');
    expect(containsAnswer(text, 'juniper')).toBe(true);
    expect(containsAnswer(text, '7 May 2023')).toBe(true);
    expect(containsAnswer(text, 'called Juniper')).toBe(true);
    expect(containsAnswer(text, 'Lisbon')).toBe(false);
  });

  it('answer retention per category: the whole conversation against a text that kept less', () => {
    const whole = rates(answerRetention(conversationText(conversation), conversation.qa));
    // Juniper (4), 6 (1: "6 hours"), Lisbon (3) are in the text; "7 May 2023" (2) only as "yesterday".
    expect(whole.byCategory).toEqual({ 1: 1, 2: 0, 3: 1, 4: 1 });
    expect(whole.overall).toBe(0.75);
    const summary = rates(answerRetention('Ben: adopted Juniper yesterday (7 May 2023).', conversation.qa));
    expect(summary.byCategory).toEqual({ 1: 0, 2: 1, 3: 0, 4: 1 });
    expect(summary.overall).toBe(0.5);
  });

  it('evidence tokens are the distinctive words of the evidence turns: 3+ characters, no stop words, in at most 3 sessions', () => {
    expect(recallTokens("Hi Ana! I adopted a greyhound, it's 10 km.")).toEqual(['ana', 'adopted', 'greyhound']);
    expect(evidenceIds({ question: '', evidence: ['D3:1; D2:2', 'D1:2'], category: 3 })).toEqual(['D3:1', 'D2:2', 'D1:2']);
    const questions = evidenceTokens(conversation);
    // Category 5 is never counted.
    expect(questions.map((q) => q.qa.category)).toEqual([4, 2, 1, 3, 1]);
    const juniper = questions[0]!;
    // The speaker label is not evidence; "juniper" is in 2 sessions: still distinctive.
    expect([...juniper.tokens].sort()).toEqual(['adopted', 'ana', 'called', 'greyhound', 'juniper', 'yesterday']);
  });

  it('drops tokens found in more than 3 sessions', () => {
    const four = convertSample(
      {
        conversation: {
          speaker_a: 'A',
          speaker_b: 'B',
          ...Object.fromEntries(
            [1, 2, 3, 4].flatMap((n) => [
              [`session_${n}_date_time`, `1:00 pm on ${n} May, 2023`],
              [`session_${n}`, [{ speaker: 'A', dia_id: `D${n}:1`, text: `The beach again, session ${n} zebra${n}.` }]],
            ]),
          ),
        },
        qa: [{ question: 'q', answer: 'x', evidence: ['D4:1'], category: 4 }],
      },
      1,
    );
    expect([...evidenceTokens(four)[0]!.tokens].sort()).toEqual(['zebra4']);
  });

  it("evidence recall is the share of a question's tokens found, averaged over questions", () => {
    const questions = evidenceTokens(conversation).slice(0, 1);
    const tally = evidenceRecall('Juniper the greyhound', questions);
    expect(rates(tally).overall).toBeCloseTo(2 / 6, 10);
    const total = emptyTally();
    addTally(total, tally);
    addTally(total, evidenceRecall('Ana adopted, called greyhound Juniper yesterday', questions));
    expect(rates(total).overall).toBeCloseTo((2 / 6 + 1) / 2, 10);
  });

  it('the last-N baseline is the tail of the conversation, N tokens long', () => {
    const whole = conversationText(conversation);
    const tail = lastTokens(whole, 20);
    expect(countTokens(tail)).toBeLessThanOrEqual(21);
    expect(whole.endsWith(tail)).toBe(true);
    expect(lastTokens(whole, 100_000)).toBe(whole);
  });

  it('prints one row per text with a rate per category and overall', () => {
    const totals: Totals = { answer: {} as Totals['answer'], evidence: {} as Totals['evidence'] };
    for (const source of SOURCES) {
      totals.answer[source] = answerRetention(source === 'whole' ? conversationText(conversation) : '', conversation.qa);
      totals.evidence[source] = evidenceRecall(source === 'whole' ? conversationText(conversation) : '', evidenceTokens(conversation));
    }
    const tables = renderTables(totals, 8750);
    expect(tables).toContain('| text | 1 multi-hop | 2 temporal | 3 open-domain | 4 single-hop | overall |');
    expect(tables).toContain('| whole conversation (ceiling) | 1.00 | 0.00 | 1.00 | 1.00 | 0.75 |');
    expect(tables).toContain('| last 8,750 tokens (baseline) | 0.00 | 0.00 | 0.00 | 0.00 | 0.00 |');
    expect(tables).toContain('| questions | 1 | 1 | 1 | 1 | 4 |');
  });
});
