/**
 * LoCoMo (snap-research/LoCoMo, `data/locomo10.json`) as memvault input: one
 * stream per conversation, one memory file per session at the session's real
 * date and time. Pure: JSON in, file texts out. The model-made fields of the
 * dataset (`session_summary`, `observation`, `event_summary`) are not used.
 */

/** One turn of a LoCoMo session. */
export interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  img_url?: string[] | string;
  blip_caption?: string;
}

/** One question of a LoCoMo sample; category 5 is adversarial. Answers may be numbers. */
export interface LocomoQa {
  question: string;
  answer?: string | number;
  evidence?: string[];
  category: number;
}

/** One LoCoMo sample: a conversation between two speakers and its questions. */
export interface LocomoSample {
  sample_id?: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: LocomoQa[];
}

/** A session of a converted conversation. */
export interface ConvertedSession {
  /** 1-based session number (`session_3` → 3). */
  index: number;
  /** Local date and time of the session as written in the frontmatter (`2023-05-08T13:56:00Z`). */
  date: string;
  day: string;
  /** Vault-relative path of the memory file. */
  path: string;
  /** The memory file: frontmatter and body. */
  file: string;
  /** The body: one `Speaker: text` paragraph per turn. */
  body: string;
  /** Turn text by dialogue id (`D3:5`), as written in the body. */
  turns: Map<string, string>;
}

/** A conversation ready to be written as a vault stream. */
export interface ConvertedConversation {
  stream: string;
  sampleId: string;
  speakers: [string, string];
  sessions: ConvertedSession[];
  /** `--now` for the build: one minute after the last session started. */
  now: string;
  qa: LocomoQa[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * Parses LoCoMo's session time (`1:56 pm on 8 May, 2023`) into a UTC ISO
 * datetime (`2023-05-08T13:56:00Z`); the dataset has no zones, so the vault
 * of the evaluation runs in UTC. Returns undefined for anything else.
 */
export function parseLocomoDate(text: string): string | undefined {
  const match = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text);
  if (!match) return undefined;
  const [, h, m, ampm, d, monthName, y] = match;
  const month = MONTHS.findIndex((name) => name.startsWith(monthName!.toLowerCase().slice(0, 3)));
  if (month < 0) return undefined;
  let hour = Number(h) % 12;
  if (ampm!.toLowerCase() === 'pm') hour += 12;
  const date = new Date(Date.UTC(Number(y), month, Number(d), hour, Number(m)));
  if (date.getUTCDate() !== Number(d)) return undefined;
  return date.toISOString().replace(/\.000Z$/, 'Z');
}

/** The text of one turn as a memory line: `Speaker: text [image: caption]`. */
export function turnLine(turn: LocomoTurn): string {
  const caption = typeof turn.blip_caption === 'string' && turn.blip_caption.trim() ? ` [image: ${turn.blip_caption.trim()}]` : '';
  return `${turn.speaker}: ${turn.text.trim()}${caption}`.replace(/\s+/g, ' ');
}

/**
 * Converts one sample into stream `conv-<n>` (n is 1-based): a memory file per
 * session (`vault/conv-1/memories/2023-05-08-session-01.md`, kind `session`,
 * title `Session 1: Caroline and Melanie`), turns as paragraphs so each turn is
 * one block for the summarizer. Sessions without a parsable date are skipped.
 */
export function convertSample(sample: LocomoSample, n: number): ConvertedConversation {
  const stream = `conv-${n}`;
  const { speaker_a: a, speaker_b: b } = sample.conversation;
  const sessions: ConvertedSession[] = [];
  for (const key of Object.keys(sample.conversation)) {
    const match = /^session_(\d+)$/.exec(key);
    if (!match) continue;
    const index = Number(match[1]);
    const turns = sample.conversation[key];
    const when = sample.conversation[`session_${index}_date_time`];
    const date = typeof when === 'string' ? parseLocomoDate(when) : undefined;
    if (!Array.isArray(turns) || turns.length === 0 || !date) continue;
    const byId = new Map<string, string>();
    const lines: string[] = [];
    for (const turn of turns as LocomoTurn[]) {
      const line = turnLine(turn);
      byId.set(turn.dia_id, line);
      lines.push(line);
    }
    const day = date.slice(0, 10);
    const body = lines.join('\n\n');
    const title = `Session ${index}: ${a} and ${b}`;
    const file = `---\ndate: ${date}\ntitle: "${title}"\nkind: session\n---\n${body}\n`;
    sessions.push({
      index,
      date,
      day,
      path: `vault/${stream}/memories/${day}-session-${String(index).padStart(2, '0')}.md`,
      file,
      body,
      turns: byId,
    });
  }
  sessions.sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : x.index - y.index));
  const last = sessions[sessions.length - 1];
  const now = last ? new Date(Date.parse(last.date) + 60_000).toISOString().replace(/\.000Z$/, 'Z') : new Date(0).toISOString();
  return { stream, sampleId: sample.sample_id ?? stream, speakers: [a, b], sessions, now, qa: sample.qa };
}

/** The whole conversation as one text, in session order: the "everything" ceiling and the source of the last-N baseline. */
export function conversationText(conversation: ConvertedConversation): string {
  return conversation.sessions.map((session) => `## Session ${session.index} (${session.date})\n\n${session.body}`).join('\n\n');
}
