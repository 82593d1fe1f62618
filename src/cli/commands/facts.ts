import { collectFacts } from '../../facts/collect.js';
import { normalizeKey } from '../../facts/extract.js';
import { factsView } from '../../facts/view.js';
import { parsePeriod } from '../../read/period-query.js';
import { openVault, pickStream } from '../../read/vault.js';
import { todayIn } from '../../time/periods.js';
import { findRoot, resolveNow } from '../context.js';
import { contradictionJson, renderFacts } from '../render/facts.js';
import { renderJson } from '../render/json.js';

export interface FactsCommandOptions {
  root?: string;
  stream?: string;
  key?: string;
  scope?: string;
  at?: string;
  all?: boolean;
  now?: string;
  json?: boolean;
  /** Ask the model of the active LLM profile about pairs of decisions on one subject (see `factsCheckCommand`). */
  check?: boolean;
  maxPairs?: string;
}

/** `memvault facts`: what holds on a day, each key's history, and the open contradictions. Read-only. */
export async function factsCommand(options: FactsCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  if (options.check) {
    // Loaded only for --check: it brings the search index and the LLM transport.
    await (await import('./facts-check.js')).factsCheckCommand(root, options);
    return;
  }
  const vault = await openVault(root);
  const now = resolveNow(options.now);
  const zone = vault.config.timezone;
  // `--at` takes what zoom takes (a day, `last week`, `2026-03`): the fact state on the period's first day.
  const at = options.at === undefined ? todayIn(now, zone) : parsePeriod(options.at, { now, zone }).start;
  const streams = options.stream ? [pickStream(vault, options.stream)] : [...vault.loaded.state.streams.values()];
  const report = collectFacts(streams.flatMap((stream) => stream.memories));
  const view = factsView(report, {
    at,
    ...(options.key !== undefined ? { key: normalizeKey(options.key) } : {}),
    ...(options.scope !== undefined ? { scope: normalizeKey(options.scope) } : {}),
    all: options.all === true,
  });
  if (options.json) {
    process.stdout.write(
      renderJson({
        at: view.at,
        facts: view.holding.map(factJson),
        ...(view.history ? { history: view.history.map((entry) => ({ ...entry, facts: entry.facts.map(factJson) })) } : {}),
        contradictions: view.contradictions.map(contradictionJson),
        problems: view.problems,
      }),
    );
    return;
  }
  process.stdout.write(renderFacts(view));
}

function factJson(fact: ReturnType<typeof factsView>['holding'][number]) {
  return {
    id: fact.id,
    key: fact.key,
    value: fact.value,
    scope: fact.scope,
    path: fact.path,
    line: fact.line,
    valid_from: fact.validFrom,
    valid_to: fact.effectiveTo ?? null,
    superseded_by: fact.supersededBy,
    ...(fact.confidence !== undefined ? { confidence: fact.confidence } : {}),
  };
}
