import type { MustKeepReason, SentenceRole, Tier } from '../vault/model.js';
import { weekRange } from '../time/periods.js';
import { sha256 } from '../util/hash.js';
import { countBytes, countTokens, type TokenizerName } from '../util/tokens.js';
import type { Summarizer, SummaryRequest, SummarySource } from './types.js';

/**
 * The embedded summarizer: offline, deterministic, no model. It scores every
 * sentence of the sources for information density, keeps must-keep items
 * first, drops near-duplicates, and lays the survivors out in the tier's
 * sections in chronological order, within the token and byte budget.
 */

/** Bump when the selection or the layout changes: it is hashed into every `promptId`, so old summaries regenerate. */
const ALGORITHM_VERSION = 'memvault-extractive/1';

interface Layout {
  /** Section titles indexed by role: done, decision, state, context (one title: everything goes there). */
  sections: readonly string[];
  /** Bold day before each bullet: none, `Tue 02-10`, or `Tue 2026-02-10` (long-term spans years). */
  dayPrefix: 'none' | 'short' | 'long';
  /** Rewrite subject-less past-tense openings as `I …` (waterfall summaries are the agent's own memory). */
  firstPerson: boolean;
  /** Where the source labels go when no source has a sentence. */
  fallbackSection: string;
}

const LAYOUTS: Record<Tier, Layout> = {
  daily: { sections: ['Done', 'Decisions', 'State', 'Context to keep'], dayPrefix: 'none', firstPerson: false, fallbackSection: 'Context to keep' },
  weekly: { sections: ['Accomplishments', 'Architecture and decisions', 'Open threads', 'Learnings'], dayPrefix: 'short', firstPerson: false, fallbackSection: 'Context' },
  monthly: { sections: ['Milestones', 'Direction', 'Debt and open threads', 'Context'], dayPrefix: 'short', firstPerson: false, fallbackSection: 'Context' },
  longterm: { sections: ['Milestones', 'Decisions in effect', 'Open threads', 'Context'], dayPrefix: 'long', firstPerson: false, fallbackSection: 'Context' },
  'waterfall-recent': { sections: ['Summary'], dayPrefix: 'none', firstPerson: true, fallbackSection: 'Summary' },
  'waterfall-longterm': { sections: ['Summary'], dayPrefix: 'none', firstPerson: true, fallbackSection: 'Summary' },
};

const ROLE_INDEX: Record<Exclude<SentenceRole, 'heading'>, number> = { done: 0, decision: 1, state: 2, context: 3 };

/** Must-keep items are taken in this order; a sentence ranks by its most important reason. */
const MUST_KEEP_ORDER: readonly MustKeepReason[] = ['pinned', 'critical', 'decision', 'code', 'date'];
const NO_MUST_KEEP = MUST_KEEP_ORDER.length;

/** Near-duplicates: content-word sets at least this similar (Jaccard) are said once. */
const DUPLICATE_JACCARD = 0.6;

/**
 * Creates the embedded summarizer (`provider: extractive`, `model: memvault-extractive-1`).
 * It makes no call and reports zero usage. Tokens are counted with `tokenizer` (default `o200k_base`).
 *
 * @example
 * const summarizer = createExtractiveSummarizer();
 * const { body } = await summarizer.summarize(request); // "## Done\n\n- Replaced JWT with …"
 */
export function createExtractiveSummarizer(options: { tokenizer?: TokenizerName } = {}): Summarizer {
  const tokenizer = options.tokenizer ?? 'o200k_base';
  return {
    provider: 'extractive',
    model: 'memvault-extractive-1',
    promptId(tier: Tier): string {
      const layout = LAYOUTS[tier];
      const description = [
        ALGORITHM_VERSION,
        `tier=${tier}`,
        `sections=${layout.sections.join('|')}`,
        `day=${layout.dayPrefix}`,
        `first-person=${layout.firstPerson}`,
        `fallback=${layout.fallbackSection}`,
        `tokenizer=${tokenizer}`,
      ].join('\n');
      return `${tier}@${sha256(description).slice(0, 8)}`;
    },
    // async so that a fault surfaces as a rejected promise, like every other provider's.
    async summarize(request: SummaryRequest) {
      const body = summarizeExtractive(request, tokenizer);
      return { body, usage: { calls: 0, inputTokens: 0, outputTokens: 0 } };
    },
  };
}

/** One sentence that could become a bullet. */
interface Candidate {
  sourceIndex: number;
  sentenceIndex: number;
  /** Day the sentence is about (`YYYY-MM-DD`): orders bullets and names them. */
  day: string;
  section: number;
  /** Bold prefixes (`**Tue 02-10** **Pinned:** `) and the sentence text, kept apart so truncation spares the prefix. */
  prefix: string;
  text: string;
  /** Content words as a set: tf-idf and near-duplicate detection. */
  words: Set<string>;
  rank: number;
  score: number;
  /** Cost in the body, measured once (the final body is counted again as a safety check). */
  tokens: number | undefined;
  bytes: number;
}

interface Budget {
  tokens: number;
  bytes: number;
}

/** Pure core of the extractive summarizer: the summary body for a request. */
function summarizeExtractive(request: SummaryRequest, tokenizer: TokenizerName): string {
  const layout = LAYOUTS[request.tier];
  let candidates = buildCandidates(request, layout);
  let sections = layout.sections;
  let dedupe = true;
  if (candidates.length === 0) {
    candidates = labelCandidates(request, layout);
    sections = [layout.fallbackSection];
    dedupe = false;
  }
  if (candidates.length === 0) return '';
  scoreCandidates(candidates, request.sources.length);

  const hard: Budget = { tokens: Math.max(0, request.budget.tokens), bytes: Math.max(0, request.budget.bytes) };
  // Each retry aims lower (100 %, 85 %, 70 %, … 40 %) so rounding and a caller's extra lines leave room.
  const factor = Math.max(0.4, 1 - 0.15 * Math.max(0, request.attempt));
  const target: Budget = { tokens: Math.floor(hard.tokens * factor), bytes: Math.floor(hard.bytes * factor) };

  const forced = forcedCandidates(candidates, request.missing);
  const priority = priorityOrder(candidates);
  const selected = select(priority, forced, sections, { hard, target, dedupe, tokenizer });

  // Safety check on the real body: piecewise counts are close to, not exactly, the whole.
  let body = render(selected, sections);
  while (selected.length > 1 && !fits(body, hard, tokenizer)) {
    selected.pop(); // the last one taken is the least important
    body = render(selected, sections);
  }
  if (selected.length > 0 && fits(body, hard, tokenizer)) return body;
  // Nothing fits whole: the single most important sentence, cut at a word boundary.
  const best = selected[0] ?? forced[0] ?? priority[0];
  return best ? truncateToFit(best, sections, hard, tokenizer) : '';
}

// ---------------------------------------------------------------------------
// Candidates

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
/** A day prefix written by this summarizer one tier below (bold markers are gone once parsed). */
const DAY_PREFIX = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:(\d{4})-)?(\d{2})-(\d{2})\s+/;
const PINNED_PREFIX = /^Pinned:\s+/;
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/;
const NAMED_DATE = /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?(?:,? \d{4})?\b|\b\d{1,2}(?:st|nd|rd|th)? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b/i;

/**
 * The day a merged summary's heading gives a sentence (`### 2026-02-10`, or a
 * week `#### 2026-W07` → its Monday): merges keep sources under such headings.
 */
function dayFromSection(section: string): string | undefined {
  const days = section.match(/\b\d{4}-\d{2}-\d{2}\b/g);
  if (days) return days[days.length - 1];
  const weeks = section.match(/\b\d{4}-W\d{2}\b/g);
  if (weeks) {
    try {
      return weekRange(weeks[weeks.length - 1]!).start;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function buildCandidates(request: SummaryRequest, layout: Layout): Candidate[] {
  const candidates: Candidate[] = [];
  request.sources.forEach((source, sourceIndex) => {
    // A bullet of a finer summary may carry on over several sentences; they share its day.
    let blockDay: { block: number; day: string } | undefined;
    source.sentences.forEach((sentence, sentenceIndex) => {
      if (sentence.role === 'heading') return;
      let text = sentence.text.trim();
      let day = blockDay?.block === sentence.block ? blockDay.day : (dayFromSection(sentence.section) ?? source.day);
      let reasons = sentence.mustKeep;

      const dated = parseDayPrefix(text, source.day);
      if (dated) {
        text = text.slice(dated.length);
        day = dated.day;
        blockDay = { block: sentence.block, day };
        // The prefix is layout, not content: the sentence keeps its date reason only if its text has a date.
        if (reasons.includes('date') && !ISO_DATE.test(text) && !NAMED_DATE.test(text)) reasons = reasons.filter((r) => r !== 'date');
      }
      // Only the lead sentence of a pinned memory is marked (see extractSentences): the package's critical section carries the rest.
      let pinned = reasons.includes('pinned');
      if (PINNED_PREFIX.test(text)) {
        text = text.replace(PINNED_PREFIX, '');
        pinned = true;
      }
      if (pinned && !reasons.includes('pinned')) reasons = ['pinned', ...reasons];
      if (text.length === 0) return;
      if (layout.firstPerson) text = toFirstPerson(text);

      let prefix = '';
      if (layout.dayPrefix !== 'none') prefix += `**${formatDay(day, layout.dayPrefix)}** `;
      if (pinned) prefix += '**Pinned:** ';
      candidates.push({
        sourceIndex,
        sentenceIndex,
        day,
        section: layout.sections.length === 1 ? 0 : ROLE_INDEX[sentence.role],
        prefix,
        text,
        words: new Set(contentWords(text)),
        rank: mustKeepRank(reasons),
        score: 0,
        tokens: undefined,
        bytes: 0,
      });
    });
  });
  return candidates;
}

/** Sources without a single sentence (bodies of code blocks only) are still named, so a period is never blank. */
function labelCandidates(request: SummaryRequest, layout: Layout): Candidate[] {
  return request.sources.map((source: SummarySource, sourceIndex) => {
    const time = request.tier === 'daily' && source.time ? `${source.time} ` : '';
    const kind = request.tier === 'daily' && source.kind ? ` (${source.kind})` : '';
    const text = `${time}${source.label}${kind}`;
    return {
      sourceIndex,
      sentenceIndex: 0,
      day: source.day,
      section: 0,
      prefix: layout.dayPrefix === 'none' ? '' : `**${formatDay(source.day, layout.dayPrefix)}** `,
      text,
      words: new Set(contentWords(text)),
      rank: source.importance === 'pinned' ? 0 : NO_MUST_KEEP,
      score: 0,
      tokens: undefined,
      bytes: 0,
    };
  });
}

function mustKeepRank(reasons: readonly MustKeepReason[]): number {
  let rank = NO_MUST_KEEP;
  for (const reason of reasons) rank = Math.min(rank, MUST_KEEP_ORDER.indexOf(reason));
  return rank;
}

function parseDayPrefix(text: string, sourceDay: string): { day: string; length: number } | undefined {
  const match = DAY_PREFIX.exec(text);
  if (!match) return undefined;
  const [whole, weekday, year, month, day] = match;
  if (whole === undefined || month === undefined || day === undefined) return undefined;
  const anchor = Date.parse(`${sourceDay}T00:00:00Z`);
  const anchorYear = Number.isNaN(anchor) ? Number(sourceDay.slice(0, 4)) : new Date(anchor).getUTCFullYear();
  // `Tue 01-02` in a week that starts on 2025-12-29 is in 2026: take the year that puts it nearest the source.
  const years = year !== undefined ? [Number(year)] : [anchorYear - 1, anchorYear, anchorYear + 1];
  let best: { iso: string; distance: number } | undefined;
  for (const y of years) {
    const iso = `${String(y).padStart(4, '0')}-${month}-${day}`;
    const time = Date.parse(`${iso}T00:00:00Z`);
    if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== iso) continue;
    if (WEEKDAYS[new Date(time).getUTCDay()] !== weekday) continue;
    const distance = Number.isNaN(anchor) ? 0 : Math.abs(time - anchor);
    if (!best || distance < best.distance) best = { iso, distance };
  }
  return best ? { day: best.iso, length: whole.length } : undefined;
}

function formatDay(day: string, form: 'short' | 'long'): string {
  const time = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(time)) return day;
  const weekday = WEEKDAYS[new Date(time).getUTCDay()] ?? '';
  return `${weekday} ${form === 'long' ? day : day.slice(5)}`;
}

const FIRST_PERSON_VERBS = new Set(
  'added analysed analyzed built changed checked cleaned completed configured created cut debugged decided deleted deployed documented dropped explored finished fixed found implemented improved installed investigated landed learned learnt merged migrated moved noticed opened profiled realised realized reduced refactored released removed renamed replaced resolved reviewed rewrote ran set shipped started switched tested tried updated upgraded wrote'.split(' '),
);

/** `Replaced JWT …` → `I replaced JWT …`; anything with a subject is left alone. */
function toFirstPerson(text: string): string {
  const match = /^([A-Z][a-z]+)\b/.exec(text);
  const verb = match?.[1];
  if (!verb || !FIRST_PERSON_VERBS.has(verb.toLowerCase())) return text;
  return `I ${verb.toLowerCase()}${text.slice(verb.length)}`;
}

// ---------------------------------------------------------------------------
// Scoring

const STOPWORDS = new Set(
  "a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does doing done down during each even few for from further get got had has have having he her here hers him his how i if in into is it its itself just let like me more most my no nor not now of off on once only or other our ours out over own really same she should so some still such than that the their theirs them then there these they this those through to too under until up us very was we were what when where which while who whom why will with would yes you your yours ok okay today yesterday tomorrow".split(' '),
);
const WORD = /[\p{L}\p{N}][\p{L}\p{N}_\-./]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

/** Lower-cased words that carry content, with a light plural fold so `session` and `sessions` match. */
function contentWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    let word = match[0];
    if (STOPWORDS.has(word)) continue;
    if (word.length < 2 && !/\d/.test(word)) continue;
    if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) word = word.slice(0, -1);
    words.push(word);
  }
  return words;
}

const MUST_KEEP_BONUS = [3, 3, 2, 1.5, 1, 0] as const;
const NUMBER_WITH_UNIT = /(?:[$€£]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:%|ms|s|sec|secs|seconds?|min|mins|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|kb|mb|gb|tb|k|m|x|tokens?|users?|requests?|req\/s|rps|qps|lines?|files?|tests?|px|bytes?|calls?|errors?|rows?)\b)/gi;
const BARE_NUMBER = /\b\d[\d,.]*\b/g;
const ISSUE_REF = /(?:^|[^\w&])(?:[\w.-]+\/[\w.-]+)?#\d+\b|\b(?:GH|PR)-\d+\b/g;
const OUTCOME = /\b(?:fixed|shipped|released|merged|deployed|resolved|reduced|improved|cut|migrated|implemented|launched|completed|landed|closed|removed|replaced|sped up|dropped|raised|increased|decreased|halved|doubled|passed|succeeded|unblocked)\b/i;
const CHIT_CHAT = /\b(?:thanks|thank you|thx|lunch|coffee|not much|hello|hey|hi|good morning|good night|good evening|cheers|lol|haha|bye|see you|how are you|have a nice|weekend plans)\b/i;

function scoreCandidates(candidates: Candidate[], sourceCount: number): void {
  // Document frequency over sources: a word said on every day of the week says little about any one of them.
  const df = new Map<string, number>();
  const seen = new Map<string, number>();
  for (const candidate of candidates) {
    for (const word of candidate.words) {
      if (seen.get(word) === candidate.sourceIndex) continue;
      seen.set(word, candidate.sourceIndex);
      df.set(word, (df.get(word) ?? 0) + 1);
    }
  }
  const n = Math.max(1, sourceCount);
  for (const candidate of candidates) {
    const text = candidate.text;
    const wordCount = text.split(/\s+/).filter(Boolean).length;
    let distinctiveness = 0;
    for (const word of candidate.words) distinctiveness += Math.log((1 + n) / (1 + (df.get(word) ?? 0))) + 1;
    // Per square root of length: rewards dense sentences without letting one-word lines win.
    let score = distinctiveness / Math.sqrt(Math.max(wordCount, 1));

    score += MUST_KEEP_BONUS[candidate.rank] ?? 0;
    const withUnit = text.match(NUMBER_WITH_UNIT)?.length ?? 0;
    const bare = Math.max(0, (text.match(BARE_NUMBER)?.length ?? 0) - withUnit);
    score += Math.min(2.5, withUnit * 1 + bare * 0.4);
    score += Math.min(1.5, properNames(text) * 0.5);
    score += Math.min(2, (text.match(ISSUE_REF)?.length ?? 0) * 1);
    if (OUTCOME.test(text)) score += 1;
    if (wordCount < 5) score -= 2;
    if (wordCount > 60) score -= 2;
    if (CHIT_CHAT.test(text)) score -= 4;
    // The latest word on an open thread is its current state.
    if (candidate.section === ROLE_INDEX.state) score += 0.25 * (candidate.sourceIndex / n);
    candidate.score = score;
  }
}

/** Capitalised words that do not start a sentence: names of people, products, systems (`Postgres`, `JWT`). */
function properNames(text: string): number {
  const words = text.split(/\s+/);
  const names = new Set<string>();
  for (let i = 1; i < words.length; i++) {
    const previous = words[i - 1] ?? '';
    if (/[.:!?]$/.test(previous)) continue;
    const word = (words[i] ?? '').replace(/^[("'`*_[]+|[)"'`*_\],.;:!?]+$/g, '');
    if (word.length >= 2 && /^[A-Z][A-Za-z0-9]/.test(word)) names.add(word);
  }
  return names.size;
}

// ---------------------------------------------------------------------------
// Selection

function byScore(a: Candidate, b: Candidate): number {
  return b.score - a.score || a.sourceIndex - b.sourceIndex || a.sentenceIndex - b.sentenceIndex;
}

/** Must-keep items by reason (pinned, critical, decision, code, date), then everything else by score. */
function priorityOrder(candidates: readonly Candidate[]): Candidate[] {
  return [...candidates].sort((a, b) => a.rank - b.rank || byScore(a, b));
}

const normalize = (text: string): string => text.replace(/`/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

/** For each item the previous attempt lost, the best sentence that names it. */
function forcedCandidates(candidates: readonly Candidate[], missing: readonly string[]): Candidate[] {
  const forced: Candidate[] = [];
  if (missing.length === 0) return forced;
  const texts = candidates.map((c) => normalize(c.text));
  for (const item of missing) {
    const needle = normalize(item);
    if (needle.length === 0) continue;
    if (forced.some((c) => normalize(c.text).includes(needle))) continue;
    let best: Candidate | undefined;
    candidates.forEach((candidate, index) => {
      const text = texts[index] ?? '';
      // The item may be an identifier inside a sentence, or a whole sentence the caller quoted.
      const hit = text.includes(needle) || (candidate.words.size >= 3 && needle.includes(text));
      if (hit && (!best || candidate.rank - best.rank < 0 || (candidate.rank === best.rank && byScore(candidate, best) < 0))) best = candidate;
    });
    if (best && !forced.includes(best)) forced.push(best);
  }
  return forced;
}

function select(
  priority: readonly Candidate[],
  forced: readonly Candidate[],
  sections: readonly string[],
  options: { hard: Budget; target: Budget; dedupe: boolean; tokenizer: TokenizerName },
): Candidate[] {
  const { hard, target, dedupe, tokenizer } = options;
  const selected: Candidate[] = [];
  const chosen = new Set<Candidate>();
  const open = new Array<boolean>(sections.length).fill(false);
  const headingTokens = sections.map((name) => countTokens(`## ${name}`, tokenizer) + 2);
  const headingBytes = sections.map((name) => countBytes(`## ${name}`) + 4);
  const lines = new Set<string>();
  let tokens = 0;
  let bytes = 0;

  const measure = (candidate: Candidate): void => {
    if (candidate.tokens !== undefined) return;
    const line = bulletLine(candidate);
    candidate.tokens = countTokens(line, tokenizer) + 1;
    candidate.bytes = countBytes(line) + 1;
  };
  const isDuplicate = (candidate: Candidate): boolean => {
    if (!dedupe) return lines.has(bulletLine(candidate));
    for (const other of selected) if (jaccard(candidate.words, other.words) >= DUPLICATE_JACCARD) return true;
    return false;
  };
  const tryAdd = (candidate: Candidate, limit: Budget, skipDedupe: boolean): void => {
    if (chosen.has(candidate)) return;
    if (!skipDedupe && isDuplicate(candidate)) return;
    measure(candidate);
    const isOpen = open[candidate.section] ?? false;
    const costTokens = (candidate.tokens ?? 0) + (isOpen ? 0 : headingTokens[candidate.section] ?? 0);
    const costBytes = candidate.bytes + (isOpen ? 0 : headingBytes[candidate.section] ?? 0);
    if (tokens + costTokens > limit.tokens || bytes + costBytes > limit.bytes) return;
    tokens += costTokens;
    bytes += costBytes;
    open[candidate.section] = true;
    chosen.add(candidate);
    lines.add(bulletLine(candidate));
    selected.push(candidate);
  };

  // Items the caller says were lost come first, against the hard budget: they are why this attempt exists.
  for (const candidate of forced) tryAdd(candidate, hard, true);
  // The smallest bullet costs a few tokens; once the room left is below that, no later candidate can fit.
  for (const candidate of priority) {
    if (target.tokens - tokens < 4 || target.bytes - bytes < 8) break;
    // Room left over is not a reason to say something worthless (greetings, thanks, lunch).
    if (candidate.rank === NO_MUST_KEEP && candidate.score < 0 && selected.length > 0) continue;
    tryAdd(candidate, target, false);
  }
  return selected;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const word of small) if (large.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}

// ---------------------------------------------------------------------------
// Layout

function bulletLine(candidate: Candidate): string {
  return `- ${candidate.prefix}${candidate.text}`;
}

/** Sections in the tier's order, bullets in the order things happened (not in score order). */
function render(selected: readonly Candidate[], sections: readonly string[]): string {
  const groups = sections.map(() => [] as Candidate[]);
  for (const candidate of selected) groups[candidate.section]?.push(candidate);
  const parts: string[] = [];
  groups.forEach((group, index) => {
    if (group.length === 0) return;
    group.sort(
      (a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0) || a.sourceIndex - b.sourceIndex || a.sentenceIndex - b.sentenceIndex,
    );
    parts.push(`## ${sections[index] ?? ''}\n\n${group.map(bulletLine).join('\n')}`);
  });
  return parts.join('\n\n');
}

function fits(body: string, budget: Budget, tokenizer: TokenizerName): boolean {
  return countBytes(body) <= budget.bytes && countTokens(body, tokenizer) <= budget.tokens;
}

/**
 * The one sentence, cut at the longest word boundary that fits (binary search on
 * the real body). A budget too small for even one word and the ellipsis yields
 * an empty body: the budget is never exceeded.
 */
function truncateToFit(candidate: Candidate, sections: readonly string[], budget: Budget, tokenizer: TokenizerName): string {
  const whole = render([candidate], sections);
  if (fits(whole, budget, tokenizer)) return whole;
  const words = candidate.text.split(' ');
  const cut = (count: number): string => {
    let text = words.slice(0, count).join(' ').replace(/[\s,;:.!?-]+$/, '');
    if ((text.match(/`/g)?.length ?? 0) % 2 === 1) text += '`';
    return render([{ ...candidate, text: `${text}…` }], sections);
  };
  let low = 0;
  let high = words.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(cut(middle), budget, tokenizer)) low = middle;
    else high = middle - 1;
  }
  return low > 0 ? cut(low) : '';
}
