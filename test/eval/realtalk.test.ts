import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convertSample } from '../../scripts/eval/locomo.js';
import { locomoDateOf, readRealtalk } from '../../scripts/eval/realtalk.js';

/**
 * The held-out set's converter (REALTALK, in LoCoMo's shape), on a tiny
 * hand-written file in REALTALK's format. The real dataset is never needed.
 */

const file = {
  name: { speaker_1: 'Emi', speaker_2: 'elise' },
  session_1: [
    { clean_text: 'Hey! How are you?', speaker: 'Emi', date_time: '29.12.2023, 22:42:04', img_file: [], img_url: [], dia_id: 'D1:1' },
    {
      clean_text: 'Made some lemon tea',
      speaker: 'elise',
      date_time: '30.12.2023, 00:32:20',
      img_file: ['x.jpg'],
      img_url: [],
      dia_id: 'D1:2',
      blip_caption: 'a cup of tea with lemon slices',
    },
  ],
  session_1_date_time: '29.12.2023, 22:42:04',
  session_2: [
    { clean_text: 'Back from the gym.', speaker: 'Emi', date_time: '02.01.2024, 08:05:00', img_file: [], img_url: [], dia_id: 'D2:1' },
  ],
  session_2_date_time: '02.01.2024, 08:05:00',
  events_session_1: { agent_a: [], agent_b: [] },
  qa: [{ question: 'What did elise make?', answer: 'lemon tea', evidence: ['D1:2'], category: 1 }],
};

const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-realtalk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('REALTALK converter', () => {
  it("writes REALTALK's session times as LoCoMo does", () => {
    expect(locomoDateOf('29.12.2023, 22:42:04')).toBe('10:42 pm on 29 December, 2023');
    expect(locomoDateOf('02.01.2024, 00:05:00')).toBe('12:05 am on 2 January, 2024');
    expect(locomoDateOf('31.13.2023, 10:00:00')).toBeUndefined();
  });

  it('reads a folder of Chat files in their numbers’ order into conversations the LoCoMo path takes', () => {
    writeFileSync(path.join(dir, 'Chat_10_Emi_elise.json'), JSON.stringify(file));
    writeFileSync(path.join(dir, 'Chat_2_Emi_elise.json'), JSON.stringify(file));
    writeFileSync(path.join(dir, 'notes.json'), '{}');
    const samples = readRealtalk(dir);
    expect(samples.map((s) => s.sample_id)).toEqual(['Chat_2_Emi_elise', 'Chat_10_Emi_elise']);
    const conversation = convertSample(samples[0]!, 1);
    expect(conversation.speakers).toEqual(['Emi', 'elise']);
    expect(conversation.sessions.map((s) => s.date)).toEqual(['2023-12-29T22:42:00Z', '2024-01-02T08:05:00Z']);
    expect(conversation.sessions[0]!.turns.get('D1:2')).toBe('elise: Made some lemon tea [image: a cup of tea with lemon slices]');
    expect(conversation.qa).toEqual(file.qa);
  });

  it('says where to get the data when a folder holds none', () => {
    const empty = mkdtempSync(path.join(dir, 'empty-'));
    expect(() => readRealtalk(empty)).toThrow(/danny911kr\/REALTALK/);
  });
});
