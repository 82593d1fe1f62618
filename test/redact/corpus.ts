/**
 * The redaction corpus: secrets of every kind memvault must never write, and
 * ordinary text it must leave alone. Secrets are assembled at run time from
 * a seeded generator and split prefixes, so no source file holds a string a
 * secret scanner (or a person) could take for a live credential.
 */

/** Deterministic random characters (mulberry32), so failures reproduce. */
function generator(seed: number): (length: number, alphabet?: string) => string {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return (length, alphabet = ALNUM) => {
    let out = '';
    // Random strings of this length always mix cases and digits; force it so every value passes the shape checks.
    while (out.length < length) out += alphabet[Math.floor(next() * alphabet.length)];
    if (alphabet === ALNUM && length >= 8) out = `${out.slice(0, length - 3)}a7Q`;
    return out;
  };
}

const r = generator(20_260_213);
const HEX = '0123456789abcdef';
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const join = (...parts: string[]): string => parts.join('');

export interface SecretCase {
  /** The `[REDACTED:kind]` marker it must become. */
  kind: string;
  /** The secret itself: must not appear in any written file. */
  secret: string;
  /** A line of a transcript holding it, as people and tools write them. */
  line: string;
}

const jwtPart = (json: object): string => Buffer.from(JSON.stringify(json)).toString('base64url');

const openai = join('s', 'k-', r(48));
const openaiProject = join('s', 'k-', 'proj-', r(74), '_', r(20), '-', r(30));
const anthropic = join('s', 'k-', 'ant-', 'api03-', r(86), '-', r(6), 'AA');
const githubPat = join('gh', 'p_', r(36));
const githubOauth = join('gh', 'o_', r(36));
const githubApp = join('gh', 's_', r(36));
const githubFine = join('github', '_pat_', r(22), '_', r(59));
const awsKeyId = join('AK', 'IA', r(16, UPPER_NUM));
const awsSecret = join(r(20), '/', r(10), '+', r(8));
const slackBot = join('xo', 'xb-', r(12, '0123456789'), '-', r(13, '0123456789'), '-', r(24));
const slackUser = join('xo', 'xp-', r(12, '0123456789'), '-', r(12, '0123456789'), '-', r(13, '0123456789'), '-', r(32, HEX));
const slackWebhook = join('https://hooks.', 'slack.com/services/', 'T', r(8, UPPER_NUM), '/B', r(10, UPPER_NUM), '/', r(24));
const googleKey = join('AI', 'za', 'Sy', r(33));
const stripeSecret = join('sk', '_live_', r(99));
const stripeRestricted = join('rk', '_live_', r(99));
const privateKeyBody = Array.from({ length: 6 }, () => r(64, B64)).join('\n');
const privateKey = join('-----BEGIN RSA ', 'PRIVATE KEY-----\n', privateKeyBody, '\n-----END RSA ', 'PRIVATE KEY-----');
const jwt = [jwtPart({ alg: 'HS256', typ: 'JWT' }), jwtPart({ sub: 'user_8812', role: 'admin', iat: 1770912000 }), r(43)].join('.');
const password = join('Tr0ub4dor&', r(6));
const passwd = join('pw-', r(10));
const secretValue = join(r(18), '!x');
const bearer = r(40);
const basicPassword = join('hunter', r(8));
const dbPassword = join('pg', r(14));
const npmToken = join('np', 'm_', r(36));
const apiKey = r(32, HEX);
const jsonToken = r(40);
const clientSecret = join(r(24), '-', r(8));

/** At least 20 kinds, as they show up in sessions: env exports, configs, curl calls, logs, URLs. */
export const SECRET_CASES: readonly SecretCase[] = [
  { kind: 'openai', secret: openai, line: `export OPENAI_API_KEY=${openai}` },
  { kind: 'openai-project', secret: openaiProject, line: `client = OpenAI(api_key="${openaiProject}")` },
  { kind: 'anthropic', secret: anthropic, line: `ANTHROPIC_API_KEY=${anthropic} claude -p "summarize"` },
  { kind: 'github-pat', secret: githubPat, line: `git remote set-url origin https://x-access-token@github.com/acme/ledgerly.git # token ${githubPat}` },
  { kind: 'github-oauth', secret: githubOauth, line: `gh auth status shows the oauth token ${githubOauth} for github.com` },
  { kind: 'github-app', secret: githubApp, line: `GITHUB_TOKEN: ${githubApp}` },
  { kind: 'github-fine-grained', secret: githubFine, line: `The fine-grained PAT is ${githubFine}, scoped to ledgerly only.` },
  { kind: 'aws-access-key-id', secret: awsKeyId, line: `aws_access_key_id = ${awsKeyId}` },
  { kind: 'aws-secret-key', secret: awsSecret, line: `aws_secret_access_key = ${awsSecret}` },
  { kind: 'slack', secret: slackBot, line: `SLACK_BOT_TOKEN=${slackBot}` },
  { kind: 'slack', secret: slackUser, line: `curl -H 'Authorization: ${slackUser}' https://slack.com/api/auth.test` },
  { kind: 'slack-webhook', secret: slackWebhook, line: `Alerts go to ${slackWebhook} (channel #billing-alerts).` },
  { kind: 'google-api-key', secret: googleKey, line: `const maps = new Maps({ key: '${googleKey}' });` },
  { kind: 'stripe-secret', secret: stripeSecret, line: `STRIPE_SECRET_KEY=${stripeSecret}` },
  { kind: 'stripe-restricted', secret: stripeRestricted, line: `Use the restricted key ${stripeRestricted} for the reporting job.` },
  { kind: 'private-key', secret: privateKeyBody.split('\n')[2]!, line: privateKey },
  { kind: 'jwt', secret: jwt, line: `The session cookie was ${jwt} when it failed.` },
  { kind: 'password', secret: password, line: `DB_PASSWORD=${password}` },
  { kind: 'password', secret: passwd, line: `passwd: ${passwd}` },
  { kind: 'secret', secret: secretValue, line: `secret=${secretValue}` },
  { kind: 'bearer-token', secret: bearer, line: `curl -H "Authorization: Bearer ${bearer}" https://api.ledgerly.example/v1/invoices` },
  { kind: 'url-password', secret: basicPassword, line: `pip install --index-url https://deploy:${basicPassword}@pypi.ledgerly.example/simple ledgerly-sdk` },
  { kind: 'database-password', secret: dbPassword, line: `DATABASE_URL=postgres://ledgerly:${dbPassword}@db.internal:5432/ledgerly` },
  { kind: 'npm', secret: npmToken, line: `//registry.npmjs.org/:_authToken=${npmToken}` },
  { kind: 'api-key', secret: apiKey, line: `api_key = "${apiKey}"` },
  { kind: 'api-key', secret: jsonToken, line: `{"user": "ana", "token": "${jsonToken}", "expires": 3600}` },
  { kind: 'secret', secret: clientSecret, line: `client_secret: "${clientSecret}"` },
];

/**
 * Text that must come out unchanged: hashes, ids, code that talks about
 * passwords and tokens without holding one, base64 data, URLs without
 * credentials, prose.
 */
export const ORDINARY_TEXT: readonly string[] = [
  'Merged 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f into main after review.',
  'The failing request had id 550e8400-e29b-41d4-a716-446655440000; the retry 6ba7b810-9dad-11d1-80b4-00c04fd430c8 worked.',
  'sha256 of the export: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  'function login(password: string): Promise<Session> { return verify(hashPassword(password)); }',
  'const password = req.body.password;',
  'if (!token) throw new Error("token required");',
  'password = os.environ["DB_PASSWORD"]',
  'export API_KEY=${API_KEY}',
  'const token = await getToken(scope);',
  'api_key: <your key here>',
  'password: ********',
  'The token expires after 30 days; refresh it with `ledgerly auth refresh`.',
  'We use bearer token auth in middleware/auth.ts.',
  'Passwordless login via magic links shipped on Tuesday.',
  'img: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'See https://github.com/acme/ledgerly/pull/482 and postgres://localhost:5432/ledgerly_test (no password locally).',
  'The risk-assessment-template-2026 and sk-learn notes are in the wiki.',
  'max_tokens: 8750, tokenizer: o200k_base, cache key main/memories/2026/02/2026-02-13-auth.md',
  'AWS region eu-central-1, bucket ledgerly-backups, role arn:aws:iam::123456789012:role/export.',
  'git checkout -b fix/invoice-flake && npm test -- --repeat 10',
  'Set `secret_key_base` in config/credentials.yml.enc, never in the repo.',
  'The primary_key = "id_user_account_2026" column stays as it is.',
  'fetch(url, { credentials: "include", headers: { Accept: "application/json" } })',
  'Use `--password-stdin` with docker login; the password is read from the vault.',
  'The commit 9c41e07 fixed rounding; tag v1.4.2 points at 5d6e7f8.',
];
