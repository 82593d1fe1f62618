import type { Facts } from './message.js';
import type { RuleSpec } from './rule.js';
import { AGENT_RULES } from './rules/agents.js';
import { CLI_RULES } from './rules/cli.js';
import { CONFIG_RULES } from './rules/config.js';
import { FACT_RULES } from './rules/facts.js';
import { GIT_RULES } from './rules/git.js';
import { INGEST_RULES } from './rules/ingest.js';
import { VAULT_RULES } from './rules/vault.js';

/**
 * The catalogue of every rule memvault reports: rule id → title, severity,
 * hint and docs. docs/errors.md is generated from it (`npm run errors-doc`),
 * and a test checks that every rule id used in `src/` is here and every
 * entry is used.
 *
 * A rule id is `area/name`; `secret/{kind}` stands for one rule per kind of
 * secret the detector knows (`secret/aws-access-key`, …).
 */
export const RULES = {
  ...VAULT_RULES,
  ...CONFIG_RULES,
  ...GIT_RULES,
  ...CLI_RULES,
  ...INGEST_RULES,
  ...AGENT_RULES,
  ...FACT_RULES,
} as const satisfies Readonly<Record<string, RuleSpec>>;

type Catalogued = keyof typeof RULES;

/** A rule id of the catalogue; a parameterised entry (`secret/{kind}`) stands for all its ids (`secret/aws-access-key`). */
export type RuleId = Exclude<Catalogued, `${string}{${string}}`> | `secret/${string}`;

/** Where the docs of the rules are, relative to the repository (and the installed package's README links). */
export const RULES_DOC = 'docs/errors.md';

/** The catalogue entry of `rule` (a secret kind finds `secret/{kind}`); undefined for an id that is not catalogued. */
export function ruleSpec(rule: string): RuleSpec | undefined {
  const direct = (RULES as Readonly<Record<string, RuleSpec>>)[rule];
  if (direct) return direct;
  return rule.startsWith('secret/') ? RULES['secret/{kind}'] : undefined;
}

/** The heading anchor of a rule in docs/errors.md: `memory/no-date` → `memory-no-date`, `secret/{kind}` → `secret-kind`. */
export function ruleAnchor(rule: string): string {
  const id = rule.startsWith('secret/') ? 'secret/{kind}' : rule;
  return id.replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** The docs link of a rule (vfile-message's `url`): `docs/errors.md#memory-no-date`. */
export function ruleUrl(rule: string): string {
  return `${RULES_DOC}#${ruleAnchor(rule)}`;
}

/**
 * The hint of `rule` with its `{name}` placeholders filled from `facts`
 * (a secret's kind comes from the id). A placeholder without a fact stays
 * as it is, so a missing fact shows instead of hiding the hint.
 *
 * @example
 *   hintFor('cli/number', { flag: '--limit', example: 20 }); // 'e.g. --limit 20'
 */
export function hintFor(rule: string, facts: Facts = {}): string | undefined {
  const spec = ruleSpec(rule);
  if (!spec) return undefined;
  const all: Facts = rule.startsWith('secret/') ? { kind: rule.slice('secret/'.length), ...facts } : facts;
  return fill(spec.hint, all);
}

/** `{name}` placeholders of `template` replaced by `facts[name]`. */
export function fill(template: string, facts: Facts): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in facts ? String(facts[name]) : whole));
}

/** The `{name}` placeholders of a template, in order (the facts a throw site must pass). */
export function placeholders(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}
