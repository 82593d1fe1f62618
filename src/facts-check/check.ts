import type { Config } from '../config/schema.js';
import type { Diagnostic } from '../messages/message.js';
import { resolveOpenAiSettings, type OpenAiSettings } from '../llm/openai-settings.js';
import { openVectorStore } from '../search/embeddings/vectors.js';
import { nearest } from '../search/fuse.js';
import { parseQuery, runSearch } from '../search/query.js';
import { ensureSearchIndex, type LoadedIndex } from '../search/store.js';
import type { ReadVault } from '../read/vault.js';
import { contentWords } from '../text/terms.js';
import { UserError } from '../util/errors.js';
import type { Memory } from '../vault/model.js';
import { readVaultFile } from '../vault/scan.js';
import { type CachedAnswer, readCheckCache, writeCheckCache } from './cache.js';
import { CheckFailedError, type CheckNote, createJudge, judgeId, loadCheckPrompt, type Judge } from './judge.js';
import { type CandidatePair, type CheckCandidate, pairKey, selectPairs } from './pairs.js';
import { collectFacts } from '../facts/collect.js';
import { withoutFrontmatter } from '../vault/frontmatter.js';

/**
 * `memvault facts --check`: decisions and facts on the same subject (found by
 * search similarity) judged by the model of the active LLM profile, for a
 * person to confirm. Answers are cached per pair of content hashes, so a
 * rerun asks nothing. See docs/facts.md.
 */

/** Pairs asked about by default: enough for a review, bounded in cost. */
export const DEFAULT_MAX_PAIRS = 50;
/** Words of a memory that make its search query (title first): more rarely change its neighbours, and cost time. */
const QUERY_WORDS = 20;
/** Groups (days) of search hits read per candidate: past the neighbours kept, as some are not candidates or are settled. */
const SEARCH_DEPTH = 10;

export interface FactsCheckOptions {
  /** Streams to check (default: all). */
  streams?: readonly string[];
  maxPairs?: number;
  env?: NodeJS.ProcessEnv;
  /** Called after each pair: `asked` requests' pairs and cached ones so far, of `total`. */
  progress?: (done: number, total: number) => void;
  /** Tests: no real waiting between retries. */
  sleep?: (ms: number) => Promise<void>;
}

/** One side of a finding. */
export interface CheckSide {
  id: string;
  path: string;
  day: string;
  title: string;
}

/** A pair the model judged contradicting: for a person to confirm (`memvault resolve` for facts, or an edit). */
export interface CheckFinding {
  a: CheckSide;
  b: CheckSide;
  reason: string;
  confidence: number;
  /** Answered from the cache, without a request. */
  cached: boolean;
}

export interface FactsCheckReport {
  /** `<model>@<prompt hash>`. */
  judge: string;
  /** Memories that state a decision or a fact. */
  candidates: number;
  /** Pairs found alike before the `maxPairs` limit, and those checked. */
  found: number;
  /** Pairs within the limit, and those answered (all of them unless a fault stopped the check). */
  selected: number;
  checked: number;
  /** Pairs answered by a request, and from the cache. */
  asked: number;
  cached: number;
  /** Requests sent, retries included. */
  requests: number;
  findings: CheckFinding[];
  /** Pairs the model could not judge (after retries); asked again next time. */
  failed: { a: string; b: string; reason: string }[];
  /** Set when a fault stopped every later request (bad key, unknown model, unreachable server). */
  stopped?: string;
  problems: Diagnostic[];
}

/**
 * Runs the check on an opened vault. Throws a `UserError` when the active
 * profile has no model; brings the search index up to date (as a build
 * does) and writes the answers to `.memvault/facts-check.json`.
 *
 * @example
 *   const report = await runFactsCheck(await openVault(root), { maxPairs: 20 });
 */
export async function runFactsCheck(vault: ReadVault, options: FactsCheckOptions = {}): Promise<FactsCheckReport> {
  const env = options.env ?? process.env;
  const settings = checkSettings(vault.config, env);
  const prompt = loadCheckPrompt();
  const judgeName = judgeId(settings, prompt);
  const streams = [...vault.loaded.state.streams.values()].filter((s) => !options.streams || options.streams.includes(s.name));
  const memories = streams.flatMap((stream) => stream.memories);
  const facts = collectFacts(memories);
  const { candidates, byPath } = checkCandidates(memories, facts);
  // Contradictions the fact rules find are reported by `memvault facts` already: no need to ask about them.
  const known = new Set(facts.contradictions.map((c) => [c.a.path, c.b.path].sort().join('\u0000')));
  const textOf = memoryTexts(vault);

  const index = ensureSearchIndex(vault.root, vault.loaded).loaded;
  const neighbours = neighbourLists(vault, index, candidates, (path) => textOf(byPath.get(path)!));
  const selected = selectPairs(candidates, neighbours, {
    maxPairs: options.maxPairs ?? DEFAULT_MAX_PAIRS,
    skip: (a, b) => byPath.get(a.path)!.stream !== byPath.get(b.path)!.stream || known.has([a.path, b.path].sort().join('\u0000')),
  });

  const cache = readCheckCache(vault.root);
  const judge = createJudge(settings, prompt, options.sleep ? { sleep: options.sleep } : {});
  const report: FactsCheckReport = {
    judge: judgeName,
    candidates: candidates.length,
    found: selected.found,
    selected: selected.pairs.length,
    checked: 0,
    asked: 0,
    cached: 0,
    requests: 0,
    findings: [],
    failed: [],
    problems: cache.problem ? [cache.problem] : [],
  };
  const note = (candidate: CheckCandidate): CheckNote => ({
    path: candidate.path,
    day: candidate.day,
    text: textOf(byPath.get(candidate.path)!),
  });
  const asked = await judgePairs({ pairs: selected.pairs, answers: cache.answers, judge, judgeName, note, byPath, options, report });
  report.requests = judge.calls;
  const pruned = pruneAnswers(cache.answers, memories);
  if (asked || pruned) writeCheckCache(vault.root, cache.answers);
  report.findings.sort((x, y) => y.confidence - x.confidence || (x.a.path < y.a.path ? -1 : x.a.path > y.a.path ? 1 : 0));
  return report;
}

/**
 * The memories worth asking about: decisions, facts and those the fact rules
 * relate to others (supersedes, compatible with), duplicates left out, each
 * with the ids it is already settled with. Keyed by path: memory ids are
 * unique within a stream only, and pairs never cross streams.
 */
function checkCandidates(
  memories: readonly Memory[],
  facts: ReturnType<typeof collectFacts>,
): { candidates: CheckCandidate[]; byPath: Map<string, Memory> } {
  const related = new Map<string, Set<string>>();
  for (const fact of facts.facts) {
    const set = related.get(fact.path) ?? new Set<string>();
    for (const id of [...fact.supersedes, ...fact.compatibleWith]) set.add(id);
    related.set(fact.path, set);
  }
  const byPath = new Map<string, Memory>();
  const candidates: CheckCandidate[] = [];
  for (const memory of memories) {
    if (memory.duplicateOf !== undefined) continue;
    if (memory.kind !== 'decision' && memory.kind !== 'fact' && !related.has(memory.path)) continue;
    byPath.set(memory.path, memory);
    const settled = [...(related.get(memory.path) ?? [])];
    candidates.push({ path: memory.path, id: memory.id, day: memory.day, sha256: memory.sha256, related: settled });
  }
  return { candidates, byPath };
}

/**
 * A reader of a memory's text for the judge: its title and the file as
 * written (frontmatter off), read once per memory. No markdown parse, which a
 * vault without a parse cache would otherwise pay for every candidate; the
 * model reads markdown as well as prose.
 */
function memoryTexts(vault: ReadVault): (memory: Memory) => string {
  const texts = new Map<string, string>();
  const inside = new Map<string, boolean>();
  return (memory) => {
    let text = texts.get(memory.path);
    if (text === undefined) {
      const read = readVaultFile(vault.vaultDir, memory.path, inside);
      const body = read.ok ? withoutFrontmatter(read.bytes.toString('utf8')) : '';
      text = [memory.title ?? '', body].join('\n').trim();
      texts.set(memory.path, text);
    }
    return text;
  };
}

/**
 * Asks the judge about each selected pair it has no cached answer for (by
 * this judge), until a failure stops the run; counts and collects findings in
 * `report`. Returns whether a new answer went into `answers`.
 */
async function judgePairs(run: {
  pairs: readonly CandidatePair[];
  answers: Map<string, CachedAnswer>;
  judge: Judge;
  judgeName: string;
  note: (candidate: CheckCandidate) => CheckNote;
  byPath: ReadonlyMap<string, Memory>;
  options: FactsCheckOptions;
  report: FactsCheckReport;
}): Promise<boolean> {
  const { answers, judgeName, report } = run;
  let changed = false;
  for (const pair of run.pairs) {
    const key = pairKey(pair.a.sha256, pair.b.sha256);
    let answer: CachedAnswer | undefined = answers.get(key);
    const cached = answer?.judge === judgeName;
    if (!cached) {
      if (report.stopped) break;
      const verdict = await ask(run.judge, pair, run.note, report);
      answer = verdict ? { ...verdict, judge: judgeName } : undefined;
      if (answer) {
        answers.set(key, answer);
        changed = true;
        report.asked++;
      }
    } else report.cached++;
    if (!answer) continue;
    report.checked++;
    run.options.progress?.(report.checked + report.failed.length, run.pairs.length);
    if (answer.contradicts) report.findings.push(finding(pair, answer, cached, run.byPath));
  }
  return changed;
}

/** Drops answers about files that no longer exist (edited or removed); the rest stay for the next run. Returns whether any went. */
function pruneAnswers(answers: Map<string, CachedAnswer>, memories: readonly Memory[]): boolean {
  const present = new Set(memories.map((memory) => memory.sha256));
  let changed = false;
  for (const key of [...answers.keys()]) {
    const [x, y] = key.split(':');
    if (!present.has(x!) || !present.has(y!)) {
      answers.delete(key);
      changed = true;
    }
  }
  return changed;
}

/** The settings of the active profile, which must call a model. */
function checkSettings(config: Config, env: NodeJS.ProcessEnv): OpenAiSettings {
  const name = env.MEMVAULT_PROFILE || config.llm.profile;
  const profile = config.llm.profiles[name];
  const known = Object.keys(config.llm.profiles).join(', ');
  if (!profile) throw new UserError('llm/profile', `LLM profile \`${name}\` is not defined`, { known });
  if (profile.provider !== 'openai') {
    const reason = `the active LLM profile \`${name}\` is the embedded \`${profile.provider}\` summarizer, which cannot judge contradictions`;
    throw new UserError('fact/check-no-llm', reason, { known });
  }
  return resolveOpenAiSettings(config, name, profile, env);
}

/** One pair's verdict, or undefined when it failed (recorded in the report; a fatal fault stops the rest). */
async function ask(
  judge: Judge,
  pair: CandidatePair,
  note: (candidate: CheckCandidate) => CheckNote,
  report: FactsCheckReport,
): Promise<Omit<CachedAnswer, 'judge'> | undefined> {
  try {
    return await judge.judge(note(pair.a), note(pair.b));
  } catch (error) {
    if (!(error instanceof CheckFailedError)) throw error;
    report.failed.push({ a: pair.a.path, b: pair.b.path, reason: error.fault.message });
    if (error.fault.fatal) report.stopped = error.fault.message;
    return undefined;
  }
}

function finding(pair: CandidatePair, answer: CachedAnswer, cached: boolean, byPath: ReadonlyMap<string, Memory>): CheckFinding {
  const side = (candidate: CheckCandidate): CheckSide => ({
    id: candidate.id,
    path: candidate.path,
    day: candidate.day,
    title: byPath.get(candidate.path)?.title ?? '',
  });
  return { a: side(pair.a), b: side(pair.b), reason: answer.reason, confidence: answer.confidence, cached };
}

/**
 * Each candidate's most alike other candidates, as `memvault search` ranks
 * them: the memory's first words as the query over the memories' tier and,
 * when the build stored embeddings, the memory's own vector's nearest
 * candidates fused in. Sends nothing: the vectors are those the build stored.
 */
function neighbourLists(
  vault: ReadVault,
  index: LoadedIndex,
  candidates: readonly CheckCandidate[],
  textOf: (path: string) => string,
): Map<string, string[]> {
  const paths = new Set(candidates.map((candidate) => candidate.path));
  const profile = vault.config.embeddings;
  const vectors = profile ? openVectorStore(vault.root, profile.model, profile.dimensions) : undefined;
  // Hits are read from the candidates' text in memory: other memories are no neighbours, and runSearch leaves out a hit
  // it cannot read, so they take no place among the groups and cost no file read for a snippet.
  const readFile = (vaultPath: string): string | undefined => (paths.has(vaultPath) ? textOf(vaultPath) : undefined);
  const lists = new Map<string, string[]>();
  for (const candidate of candidates) {
    const words = [...new Set(contentWords(textOf(candidate.path)))].slice(0, QUERY_WORDS).join(' ');
    if (!words) continue;
    const own = vectors?.get(candidate.sha256);
    const others = candidates.filter((other) => other.path !== candidate.path);
    const semantic = own
      ? nearest(
          own,
          others.map((other) => [other.path, vectors!.get(other.sha256)] as [string, Float32Array | undefined]),
          SEARCH_DEPTH,
        )
      : [];
    const groups = runSearch(
      index.index,
      parseQuery(words),
      { tier: 'memories', limit: SEARCH_DEPTH, ...(semantic.length > 0 ? { semantic: semantic.map((near) => near.id) } : {}) },
      readFile,
    );
    const hits = groups.flatMap((group) => [group.path, ...group.more.map((more) => more.path)]);
    lists.set(
      candidate.path,
      hits.filter((hit) => hit !== candidate.path && paths.has(hit)),
    );
  }
  return lists;
}
