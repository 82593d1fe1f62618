import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintRuleContext, SecretLintSourceCode } from '@secretlint/types';
import type { Finding } from './finding.js';

/**
 * secretlint's recommended preset (AWS, GCP, GitHub, Slack, npm, OpenAI,
 * Anthropic, Linear, 1Password, SendGrid, Shopify, private keys, basic auth,
 * database connection strings), run synchronously.
 *
 * Why not `@secretlint/core`'s `lintSource`: it is promise-based, and
 * memvault reads memories synchronously (on the build's worker threads too),
 * as `add` and `ingest` redact text. The preset's rules are synchronous
 * `file(source)` handlers written against secretlint's public rule API
 * (`@secretlint/types`), so this module gives them the small context that API
 * describes and collects their reports.
 */

/** The preset's rules memvault runs: `filter-comments` reads `secretlint-disable` comments; memvault has its own allow marker. */
const RULES = presetRules.filter((rule) => rule.meta.id !== '@secretlint/secretlint-rule-filter-comments');

/** Options per rule: AWS access key ids are scanned too (an id with its secret key is a credential); account ids are not secrets. */
const RULE_OPTIONS: Record<string, object> = { '@secretlint/secretlint-rule-aws': { enableIDScanRule: true } };
const NOT_SECRETS = new Set(['aws-account-id']);

/** Marker kinds for the preset's reports: `rule:messageId` or `rule`, by the message the rule reported. */
const KIND_BY_MESSAGE: Record<string, string> = {
  'aws:AWSAccountID': 'aws-account-id',
  'slack:IncomingWebhook': 'slack-webhook',
  'aws:AWSAccessKeyID': 'aws-access-key-id',
  'aws:AWSSecretAccessKey': 'aws-secret-key',
  'gcp:GCPServiceAccountKey': 'private-key',
  'openai:OPENAI_PROJECT_TOKEN': 'openai-project',
  'database-connection-string': 'database-password',
  basicauth: 'url-password',
  privatekey: 'private-key',
  '1password': '1password',
};

function kindOf(ruleId: string, messageId: string | undefined): string {
  const rule = ruleId.replace('@secretlint/secretlint-rule-', '');
  return KIND_BY_MESSAGE[`${rule}:${messageId ?? ''}`] ?? KIND_BY_MESSAGE[rule] ?? rule;
}

/** Secrets the preset finds in `text`, as `[start, end)` offsets. */
export function secretlintFindings(text: string): Finding[] {
  const findings: Finding[] = [];
  const source = {
    content: text,
    // Some rules look at the file name (`.npmrc`, `package.json`, `.p12`): a memory is markdown.
    filePath: 'memory.md',
    ext: '.md',
    contentType: 'text',
  } as unknown as SecretLintSourceCode;
  for (const rule of RULES) {
    const context = {
      sharedOptions: {},
      createTranslator: (messages: Record<string, { en: (data: unknown) => string }>) => (messageId: string, data?: unknown) => ({
        message: messages[messageId]?.en(data) ?? messageId,
        messageId,
        data,
      }),
      report: (descriptor: { message: { messageId?: string; data?: unknown }; range: readonly [number, number] }) => {
        const kind = kindOf(rule.meta.id, descriptor.message.messageId);
        if (!NOT_SECRETS.has(kind)) findings.push({ kind, ...spanOf(text, descriptor.range, descriptor.message.data) });
      },
      ignore: () => undefined,
    } as unknown as SecretLintRuleContext;
    const handlers = rule.create(context, RULE_OPTIONS[rule.meta.id] ?? {});
    // Every handler of the preset is synchronous for text (only a binary `.p12` file is read asynchronously).
    void handlers.file?.(source);
  }
  return findings;
}

/**
 * Where the reported secret is. A report names the secret in its data
 * (`{ KEY: … }`); some rules give the start of the whole match with the
 * secret's length as the range (the AWS secret key rule), so the secret is
 * looked up from the range's start, and the range is kept when it is not found.
 */
function spanOf(text: string, range: readonly [number, number], data: unknown): { start: number; end: number } {
  const values =
    data && typeof data === 'object' ? Object.values(data).filter((v): v is string => typeof v === 'string' && v.length >= 8) : [];
  for (const value of values) {
    if (text.slice(range[0], range[1]) === value) break;
    const at = text.indexOf(value, range[0]);
    if (at !== -1 && at <= range[1]) return { start: at, end: at + value.length };
  }
  return { start: range[0], end: range[1] };
}
