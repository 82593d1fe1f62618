/**
 * What a secret looks like. Each pattern names a `kind` (the marker says
 * `[REDACTED:kind]`) and finds the secret either by its own shape (a vendor
 * prefix such as `ghp_` or `sk-ant-`) or by its context (`password=…`,
 * `"api_key": "…"`, `Authorization: Bearer …`). The named group `secret` is
 * what gets replaced; the rest of the match (the key, the scheme, the user
 * name) stays, so the text still says what was there.
 *
 * Order matters: specific shapes first (an Anthropic key also starts with
 * `sk-`), context rules last, and a value already replaced is never matched
 * again (`[REDACTED:` fails every value rule).
 */

export interface SecretPattern {
  kind: string;
  /** Must be global, and have a `secret` group when only part of the match is the secret. */
  regex: RegExp;
  /** Extra check on the secret (entropy, character mix) to keep ordinary text intact. */
  accept?: (secret: string) => boolean;
}

/** Bits of entropy per character (Shannon), over the characters of `text`. */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Character classes present: lower, upper, digit, other. */
function classes(text: string): number {
  return [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(text)).length;
}

/** Random-looking: a long token mixing letters and digits with high entropy, not a word, path or placeholder. */
export function looksRandom(secret: string, minLength = 16): boolean {
  if (secret.length < minLength) return false;
  if (isPlaceholder(secret)) return false;
  if (!/[0-9]/.test(secret) || !/[A-Za-z]/.test(secret)) return false;
  // Paths and dotted names (`src/app/config.ts`, `process.env.API_KEY`) are code, not secrets.
  if (/^[\w.-]*\/[\w./-]*$/.test(secret) && /[a-z]{4,}/.test(secret)) return false;
  if (/^[a-z_$][\w$]*(\.[a-z_$][\w$]*)+$/i.test(secret)) return false;
  return shannonEntropy(secret) >= 3.3 && classes(secret) >= 2;
}

/** Values that stand for a secret without being one: `<your-key>`, `${API_KEY}`, `xxxx`, `changeme`… */
export function isPlaceholder(value: string): boolean {
  const v = value.trim();
  if (v.length === 0) return true;
  if (/^\[REDACTED(:[\w-]+)?\]$/.test(v)) return true;
  if (/^(<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|%\(?\w*\)?s|\$[A-Z_][A-Z0-9_]*|\*+|x+|X+|\.+|…|-+|_+|#+)$/.test(v)) return true;
  if (/^(none|null|nil|undefined|true|false|string|number|boolean|any|unknown|str|int|bytes|secret|password|passwd|token|redacted|example|your[-_ ]?\w*|changeme|placeholder|todo|tbd|n\/a|empty|required|optional|hidden|masked)$/i.test(v)) return true;
  return false;
}

/**
 * A password-like value in an assignment: quoted values are taken as they are
 * (unless placeholders); unquoted ones must not look like code (`string`,
 * `req.body.password`, `getPassword()`, `$PASSWORD`, a plain identifier).
 */
function acceptAssignedValue(value: string): boolean {
  if (isPlaceholder(value)) return false;
  const quoted = /^(["'`]).*\1$/s.test(value);
  const inner = quoted ? value.slice(1, -1) : value;
  if (isPlaceholder(inner)) return false;
  if (quoted && (/^\$\{?\w+\}?$/.test(inner) || /^(process\.env|os\.environ|env)\b/.test(inner))) return false;
  if (/[()[\]{};]/.test(inner) || /^(process\.env|os\.environ|env|self|this|req|request|args|opts|options|config|cfg|params|input|data|form|user|ctx)\b/i.test(inner)) return false;
  if (/^[a-z_$][\w$]*(\.[a-z_$][\w$]*)+$/i.test(inner)) return false; // a property path
  if (quoted) return true;
  // Unquoted, in prose or code: `<your password>`, `$PASSWORD`, `%s`, `*****` are not values.
  if (/^[<$%{*]/.test(inner)) return false;
  if (/^[A-Za-z_-]+$/.test(inner)) {
    // Words only: prose (`password: invalid-credentials`) or an identifier (`password: userPassword`),
    // unless one long flat word, like a generated passphrase.
    return inner.length >= 12 && /^[A-Za-z]+$/.test(inner) && !/[a-z][A-Z]/.test(inner);
  }
  return inner.length >= 4;
}

/** Vendor token shapes and context rules, most specific first. */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  // Key blocks: the whole block, or from BEGIN to the end of its base64 when the END line was cut off.
  {
    kind: 'private-key',
    regex: /-----BEGIN ((?:RSA|EC|DSA|OPENSSH|PGP|ENCRYPTED|SSH2) )?PRIVATE KEY( BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:\\[nr]|[\s\w+/=:,.-])*)/g,
  },
  { kind: 'anthropic', regex: /(?<![\w-])sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai-project', regex: /(?<![\w-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai', regex: /(?<![\w-])sk-[A-Za-z0-9]{20,}(?:T3BlbkFJ[A-Za-z0-9]{20,})?(?![\w-])/g, accept: (s) => looksRandom(s.slice(3), 20) },
  { kind: 'github-fine-grained', regex: /(?<!\w)github_pat_[A-Za-z0-9_]{50,}/g },
  { kind: 'github-pat', regex: /(?<!\w)ghp_[A-Za-z0-9]{36,}/g },
  { kind: 'github-oauth', regex: /(?<!\w)gho_[A-Za-z0-9]{36,}/g },
  { kind: 'github-app', regex: /(?<!\w)gh[usr]_[A-Za-z0-9]{36,}/g },
  { kind: 'gitlab', regex: /(?<!\w)glpat-[A-Za-z0-9_-]{20,}/g },
  { kind: 'aws-access-key-id', regex: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[A-Z0-9]{16}(?![A-Z0-9])/g },
  {
    kind: 'aws-secret-key',
    regex: /\b(?:aws_?)?secret_?(?:access_?)?key(?:_?id)?["']?\s*(?:[:=]|=>)\s*["']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
  },
  { kind: 'slack-webhook', regex: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,}/g },
  { kind: 'slack', regex: /(?<![\w-])xox[abposr]-(?:\d+-)?[A-Za-z0-9-]{10,}/g },
  { kind: 'discord-webhook', regex: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{30,}/g },
  { kind: 'google-api-key', regex: /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g },
  { kind: 'google-oauth', regex: /(?<![\w-])(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})/g },
  { kind: 'stripe-secret', regex: /(?<!\w)sk_(?:live|test)_[0-9A-Za-z]{16,}/g },
  { kind: 'stripe-restricted', regex: /(?<!\w)rk_(?:live|test)_[0-9A-Za-z]{16,}/g },
  { kind: 'stripe-webhook', regex: /(?<!\w)whsec_[0-9A-Za-z]{24,}/g },
  { kind: 'npm', regex: /(?<!\w)npm_[A-Za-z0-9]{36}(?!\w)/g },
  { kind: 'npm', regex: /:_authToken\s*=\s*(?<secret>[^\s"'$][^\s"']{8,})/g },
  { kind: 'pypi', regex: /(?<!\w)pypi-AgE[A-Za-z0-9_-]{50,}/g },
  { kind: 'huggingface', regex: /(?<!\w)hf_[A-Za-z0-9]{30,}(?!\w)/g, accept: (s) => looksRandom(s.slice(3), 20) },
  { kind: 'sendgrid', regex: /(?<!\w)SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{20,}/g },
  { kind: 'twilio', regex: /(?<![A-Za-z0-9])SK[0-9a-f]{32}(?![A-Za-z0-9])/g },
  { kind: 'shopify', regex: /(?<!\w)shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?!\w)/g },
  { kind: 'digitalocean', regex: /(?<!\w)do[por]_v1_[a-f0-9]{64}(?!\w)/g },
  { kind: 'jwt', regex: /(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // Credentials inside URLs: keep scheme, user and host, replace the password.
  {
    kind: 'database-password',
    regex: /\b(?:postgres(?:ql)?|mysql|mariadb|mssql|sqlserver|mongodb(?:\+srv)?|redis|rediss|amqps?|clickhouse|cockroachdb|couchdb|neo4j(?:\+s)?)(?:\+\w+)?:\/\/[^\s:/@"'`]*:(?<secret>[^\s@/"'`]+)@/gi,
    accept: (s) => !isPlaceholder(s),
  },
  {
    kind: 'url-password',
    regex: /\b(?:https?|ftps?|sftp|ssh|git|svn|smtps?|imaps?|ldaps?|wss?):\/\/[^\s:/@"'`]+:(?<secret>[^\s@/"'`]+)@/gi,
    accept: (s) => !isPlaceholder(s),
  },
  { kind: 'bearer-token', regex: /\b[Bb]earer\s+(?<secret>[A-Za-z0-9._~+/-]{16,}=*)/g, accept: (s) => looksRandom(s, 16) || s.startsWith('eyJ') },
  { kind: 'basic-auth', regex: /\bAuthorization["']?\s*[:=]\s*["']?Basic\s+(?<secret>[A-Za-z0-9+/]{8,}={0,2})/gi },
  { kind: 'azure-storage', regex: /\bAccountKey=(?<secret>[A-Za-z0-9+/]{40,}={0,2})/g },
  // `password = "…"`, `PASSWORD: …`, `--password …`, `"password": "…"`: the value, quoted or not.
  {
    kind: 'password',
    regex: /(?<![\w-])(?:[\w-]*(?:password|passwd|passphrase|pwd)|pass)["']?\s*(?:[:=]|=>|\s(?=["']))\s*(?<secret>"[^"\n]*"|'[^'\n]*'|`[^`\n]*`|[^\s,;'"`)}\]]+)/gi,
    accept: acceptAssignedValue,
  },
  {
    kind: 'secret',
    regex: /(?<![\w-])[\w-]*(?:secret|private[_-]?key|signing[_-]?key|encryption[_-]?key)["']?\s*(?:[:=]|=>)\s*(?<secret>"[^"\n]*"|'[^'\n]*'|[^\s,;'"`)}\]]+)/gi,
    accept: acceptAssignedValue,
  },
  // A random-looking value assigned to a key-like name: `api_key = …`, `"token": "…"`, `X-Api-Key: …`.
  {
    kind: 'api-key',
    regex: /(?<![\w-])[\w-]*(?:api[_-]?key|apikey|access[_-]?key|auth[_-]?key|app[_-]?key|master[_-]?key|token|auth|session[_-]?(?:id|key))["']?\s*(?:[:=]|=>)\s*(?<secret>"[^"\n]{12,}"|'[^'\n]{12,}'|[A-Za-z0-9_.+/~=-]{16,})/gi,
    accept: (value) => looksRandom(value.replace(/^["'`]|["'`]$/g, ''), 16),
  },
  // `--password hunter2` / `-p hunter2` on a command line (mysql, curl -u user:pass).
  { kind: 'password', regex: /(?<![\w-])--(?:password|passwd|pass|token|api-key|secret)[= ](?<secret>[^\s'"-][^\s'"]*|"[^"\n]+"|'[^'\n]+')/gi, accept: (v) => !isPlaceholder(v.replace(/^["']|["']$/g, '')) && !/^\$/.test(v) },
  { kind: 'password', regex: /\bcurl\b[^\n]*?\s-u\s+["']?[^\s:'"]+:(?<secret>[^\s'"]+)/g, accept: (v) => !isPlaceholder(v) && !/^\$/.test(v) },
];
