/**
 * The secrets corpus: credentials of every kind memvault must never write or
 * send, and ordinary text it must leave alone. Secrets are assembled at run
 * time from a generator seeded per run and split prefixes, so no source file
 * holds a string a secret scanner (or a person) could take for a live
 * credential. `MEMVAULT_SECRET_SEED` replays a run.
 */

/** Random characters (mulberry32) from `seed`. */
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
    while (out.length < length) out += alphabet[Math.floor(next() * alphabet.length)];
    // Random strings of this length nearly always mix cases and digits; force it so every value has a secret's shape.
    if (alphabet === ALNUM && length >= 8) out = `${out.slice(0, length - 3)}a7Q`;
    return out;
  };
}

export const SECRET_SEED = Number(process.env.MEMVAULT_SECRET_SEED ?? Math.floor(Math.random() * 2 ** 31));
const r = generator(SECRET_SEED);
const HEX = '0123456789abcdef';
const DIGITS = '0123456789';
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOWER_NUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const join = (...parts: string[]): string => parts.join('');
const uuid = (): string => [r(8, HEX), r(4, HEX), `4${r(3, HEX)}`, `a${r(3, HEX)}`, r(12, HEX)].join('-');
const jwtPart = (json: object): string => Buffer.from(JSON.stringify(json)).toString('base64url');

export interface SecretCase {
  /** What kind of credential it is (distinct per case). */
  name: string;
  /** The `[REDACTED:kind]` marker it becomes. */
  kind: string;
  /** The secret itself: must not appear in any written file, commit or request. */
  secret: string;
  /** A line holding it, as people and tools write them. */
  line: string;
}

const c = (name: string, kind: string, secret: string, line: string): SecretCase => ({ name, kind, secret, line });

const privateKeyBody = Array.from({ length: 6 }, () => r(64, B64)).join('\n');
const opensshBody = Array.from({ length: 5 }, () => r(70, B64)).join('\n');
const awsSecret = join(r(20), '/', r(10), '+', r(8));
const proseAwsSecret = join(r(18), '/', r(12), '+', r(9));
const opsPayload = Buffer.from(
  JSON.stringify({
    signInAddress: 'my.1password.com',
    userAuth: { method: 'SRPg-4096', alg: 'PBES2g-HS256', iterations: 650000, salt: r(22) },
    email: `${r(10, LOWER_NUM)}@1passwordserviceaccounts.com`,
    srpX: r(64, HEX),
    muk: { alg: 'A256GCM', ext: true, k: r(43), key_ops: ['encrypt', 'decrypt'], kty: 'oct', kid: 'mp' },
    secretKey: `A3-${r(6, UPPER_NUM)}-${r(6, UPPER_NUM)}-${r(5, UPPER_NUM)}-${r(5, UPPER_NUM)}-${r(5, UPPER_NUM)}-${r(5, UPPER_NUM)}`,
    throttleSecret: { seed: r(64, HEX), deviceUuid: r(26, LOWER_NUM) },
    deviceUuid: r(26, LOWER_NUM),
  }),
).toString('base64');

const cases = (): SecretCase[] => {
  const s = {
    openai: join('s', 'k-', r(20), 'T3Blbk', 'FJ', r(20)),
    openaiProject: join('s', 'k-', 'proj-', r(74), 'T3Blbk', 'FJ', r(74)),
    anthropic: join('s', 'k-', 'ant-', 'api03-', r(86), '-', r(6), 'AA'),
    githubPat: join('gh', 'p_', r(36)),
    githubOauth: join('gh', 'o_', r(36)),
    githubApp: join('gh', 's_', r(36)),
    githubFine: join('github', '_pat_', r(22), '_', r(59)),
    gitlab: join('gl', 'pat-', r(20)),
    awsKeyId: join('AK', 'IA', r(16, UPPER_NUM)),
    slackBot: join('xo', 'xb-', r(12, DIGITS), '-', r(13, DIGITS), '-', r(24)),
    slackUser: join('xo', 'xp-', r(12, DIGITS), '-', r(12, DIGITS), '-', r(13, DIGITS), '-', r(32, HEX)),
    slackWebhook: join('https://hooks.', 'slack.com/services/', 'T', r(8, UPPER_NUM), '/B', r(10, UPPER_NUM), '/', r(24)),
    discordBot: join('M', r(25), '.', r(6), '.', r(38)),
    discordWebhook: join('https://discord.com/api/', 'webhooks/', r(18, DIGITS), '/', r(68)),
    telegram: join(r(9, DIGITS), ':AA', r(33)),
    vault: join('hv', 's.', r(90)),
    doppler: join('dp', '.pt.', r(43)),
    onePassword: join('op', 's_', opsPayload),
    linear: join('lin', '_api_', r(40)),
    atlassian: join('ATA', 'TT3', r(180), '=', r(8, HEX).toUpperCase()),
    sendgrid: join('S', 'G.', r(22), '.', r(43)),
    mailgun: join('ke', 'y-', r(32, HEX)),
    // Mailgun's legacy keys: 32 of [0-9a-z], not only hex (letters past `f` and a digit, as they always have).
    mailgunLegacy: join('ke', 'y-', r(28, LOWER_NUM), r(2, 'ghijklmnopqrstuvwxyz'), r(2, DIGITS)),
    postmark: uuid(),
    sentryKey: r(32, HEX),
    googleKey: join('AI', 'za', 'Sy', r(33)),
    googleOauth: join('ya', '29.', r(60)),
    stripeSecret: join('sk', '_live_', r(99)),
    stripeRestricted: join('rk', '_live_', r(99)),
    stripeWebhook: join('wh', 'sec_', r(32)),
    huggingface: join('h', 'f_', r(34)),
    pypi: join('pyp', 'i-AgE', 'IcHlwaS5vcmc', r(60)),
    npm: join('np', 'm_', r(36)),
    shopify: join('shp', 'at_', r(32, HEX)),
    twilio: join('S', 'K', r(32, HEX)),
    digitalocean: join('do', 'p_v1_', r(64, HEX)),
    jwt: [jwtPart({ alg: 'HS256', typ: 'JWT' }), jwtPart({ sub: 'user_8812', role: 'admin', iat: 1770912000 }), r(43)].join('.'),
    azure: join(r(64, B64), '=='),
    bearer: r(40),
    basic: Buffer.from(`deploy:${r(14)}`).toString('base64'),
    dbPassword: join('pg', r(14)),
    mongoPassword: join('mg', r(14)),
    redisPassword: join('rd', r(14)),
    urlPassword: join('hunter', r(8)),
    envPassword: join('Tr0ub4dor&', r(6)),
    yamlPassword: join('pw-', r(10)),
    mysqlP: join('My', r(10), '#1'),
    sshpassP: join('Ss', r(10), '!9'),
    curlU: join('Cu', r(12)),
    cliPassword: join('Cl', r(12), '%'),
    django: join('django-insecure-', r(20), '#(x!)%^', r(10)),
    wifi: join('hunter', r(3, DIGITS), '!'),
    clientSecret: join(r(24), '-', r(8)),
    apiKey: r(32, HEX),
    jsonToken: r(40),
  };
  return [
    c('OpenAI API key (legacy)', 'openai', s.openai, `export OPENAI_API_KEY=${s.openai}`),
    c('OpenAI project key', 'openai', s.openaiProject, `client = OpenAI(api_key="${s.openaiProject}")`),
    c('Anthropic API key', 'anthropic', s.anthropic, `ANTHROPIC_API_KEY=${s.anthropic} claude -p "summarize"`),
    c('GitHub classic PAT', 'github', s.githubPat, `git push works again with the token ${s.githubPat} from the vault`),
    c('GitHub OAuth token', 'github', s.githubOauth, `gh auth status shows the oauth token ${s.githubOauth} for github.com`),
    c('GitHub app token', 'github', s.githubApp, `GITHUB_TOKEN: ${s.githubApp}`),
    c('GitHub fine-grained PAT', 'github', s.githubFine, `The fine-grained PAT is ${s.githubFine}, scoped to ledgerly only.`),
    c('GitLab PAT', 'gitlab', s.gitlab, `git clone https://oauth2@gitlab.com/acme/infra.git then set ${s.gitlab} as the CI var`),
    c('AWS access key id', 'aws-access-key-id', s.awsKeyId, `aws_access_key_id = ${s.awsKeyId}`),
    c('AWS secret access key', 'aws-secret-key', awsSecret, `aws_secret_access_key = ${awsSecret}`),
    c('Slack bot token', 'slack', s.slackBot, `SLACK_BOT_TOKEN=${s.slackBot}`),
    c('Slack user token', 'slack', s.slackUser, `curl -H 'Authorization: ${s.slackUser}' https://slack.com/api/auth.test`),
    c('Slack incoming webhook', 'slack-webhook', s.slackWebhook, `Alerts go to ${s.slackWebhook} (channel #billing-alerts).`),
    c('Discord bot token', 'discord-bot-token', s.discordBot, `client.login('${s.discordBot}')`),
    c('Discord webhook', 'discord-webhook', s.discordWebhook, `Release notes are posted by ${s.discordWebhook}`),
    c('Telegram bot token', 'telegram-bot-token', s.telegram, `The alert bot uses ${s.telegram} with chat id -100123.`),
    c('HashiCorp Vault token', 'vault-token', s.vault, `VAULT_TOKEN=${s.vault} vault kv get secret/ledgerly`),
    c('Doppler token', 'doppler', s.doppler, `doppler configure set token ${s.doppler}`),
    c('1Password service account token', '1password', s.onePassword, `OP_SERVICE_ACCOUNT_TOKEN=${s.onePassword}`),
    c('Linear API key', 'linear', s.linear, `LINEAR_API_KEY=${s.linear}`),
    c('Atlassian/Jira API token', 'atlassian', s.atlassian, `jira login with ana@acme.test and ${s.atlassian}`),
    c('SendGrid API key', 'sendgrid', s.sendgrid, `The mailer sends with ${s.sendgrid} since Monday.`),
    c('Mailgun API key', 'mailgun', s.mailgun, `curl -s --user 'api:${s.mailgun}' https://api.mailgun.net/v3/mg.acme.test/messages`),
    c('Mailgun legacy API key', 'mailgun', s.mailgunLegacy, `The old mailer still signs its webhooks with ${s.mailgunLegacy} until March.`),
    c('Postmark server token', 'postmark', s.postmark, `X-Postmark-Server-Token: ${s.postmark}`),
    c('Sentry DSN', 'sentry-dsn', s.sentryKey, `SENTRY_DSN=https://${s.sentryKey}@o4505${r(6, DIGITS)}.ingest.sentry.io/45${r(5, DIGITS)}`),
    c('Google API key', 'google-api-key', s.googleKey, `const maps = new Maps({ key: '${s.googleKey}' });`),
    c('Google OAuth access token', 'google-oauth', s.googleOauth, `gcloud printed ${s.googleOauth} as the access token`),
    c('Stripe secret key', 'stripe', s.stripeSecret, `STRIPE_SECRET_KEY=${s.stripeSecret}`),
    c('Stripe restricted key', 'stripe', s.stripeRestricted, `Use the restricted key ${s.stripeRestricted} for the reporting job.`),
    c('Stripe webhook secret', 'stripe', s.stripeWebhook, `stripe listen printed ${s.stripeWebhook}`),
    c('Hugging Face token', 'huggingface', s.huggingface, `huggingface-cli login --token ${s.huggingface}`),
    c('PyPI token', 'pypi', s.pypi, `twine upload -u __token__ with ${s.pypi}`),
    c('npm token', 'npm', s.npm, `//registry.npmjs.org/:_authToken=${s.npm}`),
    c('Shopify access token', 'shopify', s.shopify, `X-Shopify-Access-Token: ${s.shopify}`),
    c('Twilio API key', 'twilio', s.twilio, `The SMS job authenticates as ${s.twilio}.`),
    c('DigitalOcean token', 'digitalocean', s.digitalocean, `doctl auth init -t ${s.digitalocean}`),
    c('JWT', 'jwt', s.jwt, `The session cookie was ${s.jwt} when it failed.`),
    c(
      'Azure storage account key',
      'azure-storage',
      s.azure,
      `DefaultEndpointsProtocol=https;AccountName=ledgerly;AccountKey=${s.azure};EndpointSuffix=core.windows.net`,
    ),
    c(
      'Private key (RSA PEM)',
      'private-key',
      privateKeyBody.split('\n')[2]!,
      join('-----BEGIN RSA ', 'PRIVATE KEY-----\n', privateKeyBody, '\n-----END RSA ', 'PRIVATE KEY-----'),
    ),
    c(
      'Private key (OpenSSH)',
      'private-key',
      opensshBody.split('\n')[1]!,
      join('-----BEGIN OPENSSH ', 'PRIVATE KEY-----\n', opensshBody, '\n-----END OPENSSH ', 'PRIVATE KEY-----'),
    ),
    c('Bearer token', 'bearer-token', s.bearer, `curl -H "Authorization: Bearer ${s.bearer}" https://api.ledgerly.example/v1/invoices`),
    c('Basic auth header', 'basic-auth', s.basic, `Authorization: Basic ${s.basic}`),
    c(
      'PostgreSQL connection string',
      'database-password',
      s.dbPassword,
      `DATABASE_URL=postgres://ledgerly:${s.dbPassword}@db.internal:5432/ledgerly`,
    ),
    c(
      'MongoDB SRV connection string',
      'database-password',
      s.mongoPassword,
      `MONGO_URL=mongodb+srv://app:${s.mongoPassword}@cluster0.ab1cd.mongodb.net/prod`,
    ),
    c('Redis URL with password', 'database-password', s.redisPassword, `REDIS_URL=redis://:${s.redisPassword}@cache.internal:6379/0`),
    c(
      'Password in an HTTPS URL',
      'url-password',
      s.urlPassword,
      `pip install --index-url https://deploy:${s.urlPassword}@pypi.ledgerly.example/simple ledgerly-sdk`,
    ),
    c('Password in .env', 'password', s.envPassword, `DB_PASSWORD=${s.envPassword}`),
    c('Password in YAML', 'password', s.yamlPassword, `passwd: ${s.yamlPassword}`),
    c('mysql -pPASS', 'password', s.mysqlP, `mysql -h db.internal -u root -p${s.mysqlP} ledgerly < dump.sql`),
    c('sshpass -p PASS', 'password', s.sshpassP, `sshpass -p '${s.sshpassP}' ssh deploy@10.0.0.7`),
    c('curl -u user:pass', 'password', s.curlU, `curl -u admin:${s.curlU} https://jenkins.acme.test/api/json`),
    c('--password flag', 'password', s.cliPassword, `ledgerly-admin login --user ana --password ${s.cliPassword}`),
    c('Django SECRET_KEY with symbols', 'secret', s.django, `SECRET_KEY = '${s.django}'`),
    c('Password stated in prose', 'password', s.wifi, `Note for later: the wifi password is ${s.wifi}`),
    c('AWS secret stated in prose', 'password', proseAwsSecret, `the AWS secret is ${proseAwsSecret} (rotate it after the demo)`),
    c('OAuth client secret', 'secret', s.clientSecret, `client_secret: "${s.clientSecret}"`),
    c('Generic API key assignment', 'api-key', s.apiKey, `api_key = "${s.apiKey}"`),
    c('Token in JSON', 'api-key', s.jsonToken, `{"user": "ana", "token": "${s.jsonToken}", "expires": 3600}`),
  ];
};

export const SECRET_CASES: readonly SecretCase[] = cases();

/**
 * Text that must come out unchanged: hashes, ids, code that talks about
 * passwords and tokens without holding one, base64 data, URLs without
 * credentials, dates, versions, prose.
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
  'auth: oauth2-client-credentials-flow',
  'token: refresh-token-v2-rotation',
  'session_key: user_profile_v2_cache',
  'The token expires after 30 days; refresh it with `ledgerly auth refresh`.',
  'We use bearer token auth in middleware/auth.ts.',
  'Passwordless login via magic links shipped on Tuesday.',
  'The password is required and the token is valid for 30 days; the secret is stored in the vault.',
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
  'Deployed 2026-02-13T14:05:00+01:00, release 3.12.0-rc.2, node 20.19.1.',
  'docker run -p 8080:80 nginx; ssh -p 2222 deploy@host; mysql -p (it prompts for the password)',
  'The key-value store keeps session ids like sess_a1b2 for an hour.',
  'Base64 of the config: eyJuYW1lIjoibGVkZ2VybHkiLCJ2ZXJzaW9uIjoxfQ==',
  '- 1Password: "Ledgerly Eng" vault',
  'Context rules cover `secret=`, `client_secret:`, `--password …`, `curl -u user:…` and more.',
];
