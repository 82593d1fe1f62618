import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { LocomoQa, LocomoSample, LocomoTurn } from './locomo.js';

/**
 * REALTALK (danny911kr/REALTALK, `data/Chat_<n>_<A>_<B>.json`): 21 days of real
 * messaging-app conversations between two people, with memory-probing
 * questions in LoCoMo's format (evidence as dialogue ids `D3:5`, categories 1
 * multi-hop, 2 temporal, 3 open-domain/commonsense). The held-out set of the
 * per-question eval: nothing in `context` is tuned on it. Converted to
 * LoCoMo samples so both datasets take the same path (locomo.ts). Pure but
 * for reading the files.
 */

interface RealtalkTurn {
  clean_text: string;
  speaker: string;
  dia_id: string;
  blip_caption?: string;
}

interface RealtalkFile {
  name: { speaker_1: string; speaker_2: string };
  qa: LocomoQa[];
  [key: string]: unknown;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** REALTALK's `29.12.2023, 22:42:04` as LoCoMo writes a session's time (`10:42 pm on 29 December, 2023`); undefined otherwise. */
export function locomoDateOf(text: string): string | undefined {
  const match = /^\s*(\d{1,2})\.(\d{1,2})\.(\d{4}),\s*(\d{1,2}):(\d{2})(?::\d{2})?\s*$/.exec(text);
  if (!match) return undefined;
  const [, d, m, y, h, min] = match;
  const month = MONTHS[Number(m) - 1];
  if (!month) return undefined;
  const hour = Number(h);
  return `${hour % 12 === 0 ? 12 : hour % 12}:${min} ${hour < 12 ? 'am' : 'pm'} on ${Number(d)} ${month}, ${y}`;
}

/** One REALTALK conversation as a LoCoMo sample (`sample_id` is the file's name). */
export function realtalkSample(file: RealtalkFile, sampleId: string): LocomoSample {
  const conversation: LocomoSample['conversation'] = { speaker_a: file.name.speaker_1, speaker_b: file.name.speaker_2 };
  for (const key of Object.keys(file)) {
    const match = /^session_(\d+)$/.exec(key);
    if (!match || !Array.isArray(file[key])) continue;
    const when = file[`session_${match[1]}_date_time`];
    const date = typeof when === 'string' ? locomoDateOf(when) : undefined;
    if (!date) continue;
    conversation[key] = (file[key] as RealtalkTurn[]).map(
      (turn): LocomoTurn => ({
        speaker: turn.speaker,
        dia_id: turn.dia_id,
        text: turn.clean_text,
        ...(turn.blip_caption ? { blip_caption: turn.blip_caption } : {}),
      }),
    );
    conversation[`session_${match[1]}_date_time`] = date;
  }
  return { sample_id: sampleId, conversation, qa: file.qa };
}

/** The REALTALK conversations of a folder (or one file), in the order of their number (`Chat_2_…` before `Chat_10_…`). */
export function readRealtalk(location: string): LocomoSample[] {
  const files = statSync(location).isDirectory()
    ? readdirSync(location)
        .filter((name) => /^Chat_\d+_.*\.json$/.test(name))
        .sort((a, b) => Number(/^Chat_(\d+)/.exec(a)![1]) - Number(/^Chat_(\d+)/.exec(b)![1]))
        .map((name) => path.join(location, name))
    : [location];
  if (files.length === 0)
    throw new Error(`${location}: no Chat_<n>_<A>_<B>.json files; copy data/*.json of github.com/danny911kr/REALTALK there`);
  return files.map((file) => realtalkSample(JSON.parse(readFileSync(file, 'utf8')) as RealtalkFile, path.basename(file, '.json')));
}
