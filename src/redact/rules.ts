import { acceptAssignedValue, acceptProseValue, isPlaceholder, looksRandom } from './shape.js';

/**
 * memvault's own rules, next to secretlint's preset (secretlint.ts): vendor
 * shapes the preset does not know, credentials on command lines, key/value
 * assignments and passwords stated in prose. Each names a `kind` (the marker
 * says `[REDACTED:kind]`); the named group `secret`, when present, is what is
 * replaced, so the key, the scheme and the user name stay readable.
 * Bump `RULES_VERSION` (version.ts) with any change: the parse cache keys on it.
 */

export interface SecretRule {
  kind: string;
  /** Global; a `secret` group when only part of the match is the secret. */
  regex: RegExp;
  /** Extra check on the secret (shape, entropy) to keep ordinary text intact. */
  accept?: (secret: string) => boolean;
  /**
   * A cheap test every text `regex` matches in passes (what the match cannot
   * do without): a text that fails it is not searched. For the key-name rules,
   * whose `[\w-]{0,40}` lead is tried at every word character (~0.4 s of a
   * build thread's 2,000 memories).
   */
  prefilter?: RegExp;
}

const unquote = (v: string): string => v.replace(/^["'`]|["'`]$/g, '');
const notReference = (v: string): boolean => !isPlaceholder(unquote(v)) && !/^["']?\$/.test(v);

export const SECRET_RULES: readonly SecretRule[] = [
  // Vendor shapes the preset lacks.
  {
    kind: 'private-key',
    regex: new RegExp(
      '-----BEGIN ((?:RSA|EC|DSA|OPENSSH|PGP|ENCRYPTED|SSH2) )?PRIVATE KEY( BLOCK)?-----' +
        String.raw`(?:[\s\S]{0,20000}?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----` +
        String.raw`|(?:\\[nr]|[\s\w+/=:,.-])*)`,
      'g',
    ),
  },
  { kind: 'openai', regex: /(?<![\w-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}/g },
  { kind: 'github-token', regex: /(?<!\w)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})/g },
  { kind: 'gitlab', regex: /(?<!\w)gl(?:pat|dt|ptt|rt|cbt)-[A-Za-z0-9_-]{20,}/g },
  { kind: 'stripe', regex: /(?<!\w)(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}|(?<!\w)whsec_[0-9A-Za-z]{24,}/g },
  { kind: 'google-api-key', regex: /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g },
  { kind: 'google-oauth', regex: /(?<![\w-])(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})/g },
  { kind: 'huggingface', regex: /(?<!\w)hf_[A-Za-z0-9]{30,}(?!\w)/g, accept: (s) => looksRandom(s.slice(3), 20) },
  { kind: 'pypi', regex: /(?<!\w)pypi-AgE[A-Za-z0-9_-]{50,}/g },
  { kind: 'twilio', regex: /(?<![A-Za-z0-9])SK[0-9a-f]{32}(?![A-Za-z0-9])/g },
  { kind: 'digitalocean', regex: /(?<!\w)do[por]_v1_[a-f0-9]{64}(?!\w)/g },
  { kind: 'jwt', regex: /(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'slack', regex: /(?<![\w-])xox[abposre]-(?:\d+-)?[A-Za-z0-9-]{10,}|(?<![\w-])xapp-\d-[A-Za-z0-9-]{10,}/g },
  { kind: 'slack-webhook', regex: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,}/g },
  { kind: 'discord-webhook', regex: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{30,}/g },
  { kind: 'discord-bot-token', regex: /(?<![\w.-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![\w.-])/g },
  { kind: 'telegram-bot-token', regex: /(?<![\w:])\d{8,10}:AA[A-Za-z0-9_-]{32,33}(?![\w-])/g },
  { kind: '1password', regex: /(?<![\w-])ops_ey[A-Za-z0-9+/=_-]{100,}/g },
  { kind: 'vault-token', regex: /(?<![\w.])hv[sbr]\.[A-Za-z0-9_-]{24,}/g },
  { kind: 'doppler', regex: /(?<![\w.])dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}(?![A-Za-z0-9])/g },
  { kind: 'atlassian', regex: /(?<![\w-])ATATT3[A-Za-z0-9_=-]{50,}/g },
  // Mailgun's keys: `key-` and 32 hex characters, or, for its legacy keys, 32 of [0-9a-z], then letters and digits mixed
  // (a hyphenated word of 32 letters is not a key).
  {
    kind: 'mailgun',
    regex: /(?<![\w-])key-[0-9a-z]{32}(?![\w-])/g,
    accept: (s) => /^key-[0-9a-f]{32}$/.test(s) || (/[0-9]/.test(s.slice(4)) && /[a-z]/.test(s.slice(4))),
  },
  {
    kind: 'postmark',
    regex:
      /(?:postmark|X-Postmark-(?:Server|Account)-Token)[^\n]{0,40}?(?<secret>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/gi,
  },
  { kind: 'sendgrid', regex: /(?<!\w)SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{20,}/g },
  { kind: 'sentry-dsn', regex: /\bhttps?:\/\/(?<secret>[0-9a-f]{32}(?::[0-9a-f]{32})?)@[\w.-]+\/\d+/g },
  { kind: 'azure-storage', regex: /\bAccountKey=(?<secret>[A-Za-z0-9+/]{40,}={0,2})/g },
  { kind: 'npm', regex: /:_authToken\s*=\s*(?<secret>[^\s"'$][^\s"']{8,})/g },
  // Credentials inside URLs: keep scheme, user and host, replace the password.
  {
    kind: 'database-password',
    regex: new RegExp(
      '\\b(?:postgres(?:ql)?|mysql|mariadb|mssql|sqlserver|mongodb(?:\\+srv)?|redis|rediss|amqps?|clickhouse|cockroachdb' +
        '|couchdb|neo4j(?:\\+s)?)(?:\\+\\w+)?:\\/\\/[^\\s:/@"\'`]*:(?<secret>[^\\s@/"\'`]+)@',
      'gi',
    ),
    accept: (s) => !isPlaceholder(s),
  },
  {
    kind: 'url-password',
    regex: /\b(?:https?|ftps?|sftp|ssh|git|svn|smtps?|imaps?|ldaps?|wss?):\/\/[^\s:/@"'`]+:(?<secret>[^\s@/"'`]+)@/gi,
    accept: (s) => !isPlaceholder(s),
  },
  {
    kind: 'bearer-token',
    regex: /\b[Bb]earer\s+(?<secret>[A-Za-z0-9._~+/-]{16,}=*)/g,
    accept: (s) => looksRandom(s, 16) || s.startsWith('eyJ'),
  },
  { kind: 'basic-auth', regex: /\bAuthorization["']?\s*[:=]\s*["']?Basic\s+(?<secret>[A-Za-z0-9+/]{8,}={0,2})/gi },
  // Command lines: `mysql -pPASS`, `sshpass -p PASS`, `curl -u user:pass`, `redis-cli -a PASS`, `--password PASS`.
  {
    kind: 'password',
    regex: /\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]{0,300}?\s-p(?<secret>[^\s'"`-][^\s'"`]*|'[^'\n]+'|"[^"\n]+")/g,
    accept: notReference,
  },
  { kind: 'password', regex: /\bsshpass\s+-p\s*(?<secret>[^\s'"`-][^\s'"`]*|'[^'\n]+'|"[^"\n]+")/g, accept: notReference },
  {
    kind: 'password',
    regex: /\bredis-cli\b[^\n|;&]{0,300}?\s-a\s+(?<secret>[^\s'"`-][^\s'"`]*|'[^'\n]+'|"[^"\n]+")/g,
    accept: notReference,
  },
  {
    kind: 'password',
    regex: /\b(?:curl|wget|http)\b[^\n]{0,300}?\s(?:-u|--user)[\s=]+["']?[^\s:'"]+:(?<secret>[^\s'"]+)/g,
    accept: notReference,
  },
  {
    kind: 'password',
    regex: /(?<![\w-])--(?:password|passwd|pass|token|api-key|secret|client-secret)[= ](?<secret>[^\s'"`-][^\s'"`]*|"[^"\n]+"|'[^'\n]+')/gi,
    accept: notReference,
  },
  // `password = "…"`, `PASSWORD: …`, `"password": "…"`, `SECRET_KEY='…'`: the value, quoted or not.
  {
    kind: 'password',
    regex: new RegExp(
      '(?<![\\w-])(?!1password)(?:[\\w-]{0,40}(?:password|passwd|passphrase|pwd)[\\w-]{0,40}|pass)["\']?\\s*(?:[:=]|=>|\\s(?=["\']))\\s*(?<secret>"[^"\\n]*"' +
        "|'[^'\\n]*'|`[^`\\n]*`|[^\\s,;'\"`)}\\]]+)",
      'gi',
    ),
    prefilter: /pass|pwd/i,
    accept: acceptAssignedValue,
  },
  {
    kind: 'secret',
    regex: new RegExp(
      '(?<![\\w-])[\\w-]{0,40}(?:secret|private[_-]?key|signing[_-]?key|encryption[_-]?key)[\\w-]{0,40}["\']?\\s*(?:[:=]|=>)\\s*(?<secret>"[^"\\n]*"' +
        "|'[^'\\n]*'|[^\\s,;'\"`]+)",
      'gi',
    ),
    prefilter: /secret|private[_-]?key|signing[_-]?key|encryption[_-]?key/i,
    accept: acceptAssignedValue,
  },
  // A random-looking value assigned to a key-like name: `api_key = …`, `"token": "…"`, `X-Api-Key: …`.
  {
    kind: 'api-key',
    regex: new RegExp(
      String.raw`(?<![\w-])[\w-]{0,40}(?:api[_-]?key|apikey|access[_-]?key|auth[_-]?key|app[_-]?key|master[_-]?key|token|auth|session[_-]?(?:id` +
        String.raw`|key))["']?\s*(?:[:=]|=>)\s*(?<secret>"[^"\n]{12,}"|'[^'\n]{12,}'|[A-Za-z0-9_.+/~=-]{16,})`,
      'gi',
    ),
    // Every key name above ends in `key`, `token`, `auth` or `id`, and an assignment follows it.
    prefilter: /(?:key|token|auth|id)["']?\s*(?:[:=]|=>)/i,
    accept: (value) => looksRandom(unquote(value), 16),
  },
  // Prose: "the wifi password is hunter2!", "the AWS secret is …", "my token: …".
  {
    kind: 'password',
    regex: new RegExp(
      '\\b(?:password|passphrase|passcode|passwd|pin|secret(?: key)?|api[ -]key|access key|token)' +
        '\\s+(?:is|was|=|:)\\s+[`"\']?(?<secret>[^\\s`"\']+?)[`"\']?(?=[.,;:)]?(?:\\s' +
        '|$))',
      'gi',
    ),
    accept: acceptProseValue,
  },
];
