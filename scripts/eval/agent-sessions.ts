import { addDays } from '../../src/time/periods.js';
import { mulberry32 } from '../fixtures/synthetic-vault.js';

/**
 * Claude Code session logs (`~/.claude/projects/…/*.jsonl`) of a developer's
 * few weeks on one repository, for `npm run eval`'s agent-session section:
 * several sessions a working day on different work items (`LED-231`), each
 * with its branch, the person's requests naming related items and PRs
 * (`#418`), reads, edits, test runs that fail then pass, a decision, commits
 * with the hash git printed, and what is left open. Deterministic: the same
 * options give byte-identical logs. The shape of each line is what Claude Code
 * 1.0 writes (see test/fixtures/claude-code/README.md).
 */

export interface AgentSessionOptions {
  /** First day (`YYYY-MM-DD`, default 2026-10-05, a Monday). */
  start?: string;
  /** Days of work, weekends included (default 21). */
  days?: number;
  seed?: number;
}

export interface SessionLog {
  /** File name, `<session id>.jsonl`. */
  name: string;
  /** The JSONL text. */
  text: string;
  day: string;
  /** Work-item ids and PR numbers the session's text names (`LED-231`, `#418`). */
  ids: string[];
}

interface Epic {
  key: string;
  area: string;
  title: string;
  files: string[];
  test: string;
  cause: string;
  decision: string;
  alternative: string;
  next: string;
}

const EPICS: readonly Epic[] = [
  {
    key: 'export',
    area: 'invoice export',
    title: 'invoice CSV export times out for large accounts',
    files: ['src/export/csv.ts', 'src/export/stream.ts', 'src/db/invoices.ts'],
    test: 'test/export/csv.test.ts',
    cause: 'the export loads every invoice of the account into memory and builds the CSV as one string before sending it',
    decision: 'stream the rows with a keyset cursor of 500 invoices and write each chunk to the response as it comes',
    alternative: 'a background job with an emailed download link',
    next: 'the PDF export has the same pattern and should move to the cursor too',
  },
  {
    key: 'currency',
    area: 'multi-currency',
    title: 'multi-currency totals on the dashboard',
    files: ['src/money/convert.ts', 'src/dashboard/totals.ts', 'src/rates/ecb.ts'],
    test: 'test/money/convert.test.ts',
    cause: 'totals mixed amounts in different currencies because conversion ran after the sum instead of per invoice',
    decision: 'convert each invoice at the ECB rate of its issue date and keep amounts in integer minor units',
    alternative: 'converting at today’s rate, which would make last year’s totals move every day',
    next: 'the rate cache needs a fallback when the ECB feed is down on a bank holiday',
  },
  {
    key: 'webhooks',
    area: 'Stripe webhooks',
    title: 'duplicate payments from retried Stripe webhooks',
    files: ['src/webhooks/stripe.ts', 'src/payments/record.ts', 'migrations/0042_webhook_events.sql'],
    test: 'test/webhooks/stripe.test.ts',
    cause: 'Stripe retries a webhook after a timeout and the handler recorded the payment a second time',
    decision: 'store each event id in a webhook_events table with a unique index and skip an event seen before',
    alternative: 'an in-memory set of recent ids, which a restart or a second instance would lose',
    next: 'old rows of webhook_events should be pruned after 30 days by the nightly job',
  },
  {
    key: 'n-plus-one',
    area: 'invoice list',
    title: 'slow invoice list page (N+1 queries)',
    files: ['src/invoices/list.ts', 'src/db/customers.ts', 'src/invoices/list.sql'],
    test: 'test/invoices/list.test.ts',
    cause: 'the list loaded each invoice’s customer in its own query, 51 queries for a page of 50',
    decision: 'join customers in the list query and select only the 9 columns the page shows',
    alternative: 'a per-request DataLoader, more code for the same result on this page',
    next: 'the customer detail page still has two N+1 loops over payments',
  },
  {
    key: 'auth',
    area: 'session tokens',
    title: 'replace JWT sessions with rotating refresh tokens',
    files: ['src/auth/session.ts', 'src/auth/refresh.ts', 'src/middleware/auth.ts'],
    test: 'test/auth/refresh.test.ts',
    cause: 'long-lived JWTs cannot be revoked, which the security review by Fennek flagged as high risk',
    decision: 'issue 15-minute access tokens with rotating refresh tokens stored hashed in Postgres, revoked on reuse',
    alternative: 'a JWT deny-list in Redis, which keeps the long lifetime and adds a lookup per request',
    next: 'the mobile app must handle a 401 by refreshing once before logging out',
  },
  {
    key: 'reminders',
    area: 'payment reminders',
    title: 'scheduled payment reminders for overdue invoices',
    files: ['src/reminders/schedule.ts', 'src/reminders/templates.ts', 'src/jobs/nightly.ts'],
    test: 'test/reminders/schedule.test.ts',
    cause: 'reminders were sent by a cron script on one server that silently stopped after the last deploy',
    decision: 'run reminders as a nightly job in the existing queue with one idempotency key per invoice and day',
    alternative: 'a separate cron container, one more thing to deploy and watch',
    next: 'the reminder e-mails need a German and a French template before the v2.0 release',
  },
];

/** One round of work in a session: what the person asks, what the agent explains, commits and reports. */
interface Step {
  ask: (epic: Epic, reviewer: string) => string;
  explain: (epic: Epic, mainFile: string, secondFile: string, n: number) => string;
  commit: string;
  done: (epic: Epic) => string;
}

const STEPS: readonly Step[] = [
  {
    ask: () => 'Handle the case where the database connection drops halfway; right now the request hangs.',
    explain: (epic, file, _second, n) =>
      `When the connection drops, the ${epic.area} code in ${file} waits on a promise that never settles, so the request hangs until ` +
      `the load balancer cuts it after ${n * 10} seconds. Wrapping the loop in the existing withRetry helper and closing the cursor ` +
      'in a finally block makes it fail fast with a clear error instead.',
    commit: 'fail fast when the connection drops',
    done: (epic) => `A dropped connection now ends the ${epic.area} request with a 503 and a clear message instead of hanging.`,
  },
  {
    ask: (_epic, reviewer) => `Address ${reviewer}'s review: naming, and the missing test for an empty account.`,
    explain: (_epic, file, second) =>
      `The review asked for clearer names in ${file} and a test for an account without data. An empty account returned a 500 because ` +
      `${second} assumed at least one row; it now returns an empty result, and the helper names say what they do.`,
    commit: 'review comments and empty-account test',
    done: (epic) => `The review comments on the ${epic.area} change are addressed and an empty account is covered by a test.`,
  },
  {
    ask: () => 'Existing rows need the new format too. Write the migration and make sure it is safe to run twice.',
    explain: (epic, _file, _second, n) =>
      `Existing data predates the ${epic.area} change, so a migration backfills it in batches of ${n * 100} rows inside a transaction ` +
      'per batch. It checks a marker column first, so running it twice changes nothing, and it took 40 seconds on a copy of production.',
    commit: 'backfill migration, safe to rerun',
    done: (epic) => `The backfill migration for ${epic.area} is written, runs in batches and is safe to run twice.`,
  },
  {
    ask: () => 'Measure it against the staging data set before and after, and put the numbers in the PR description.',
    explain: (epic, _file, _second, n) =>
      `On the staging data set the ${epic.area} path took ${n * 110} ms at the 95th percentile before the change and ${n * 9} ms ` +
      'after it, with memory flat instead of growing with the account size. The numbers and the script that measured them are in the ' +
      'PR description.',
    commit: 'benchmark script and numbers',
    done: (epic) => `The ${epic.area} change is measured on staging and the numbers are in the PR description.`,
  },
  {
    ask: () => 'Document the behaviour for the support team and add a changelog entry for v2.0.',
    explain: (epic) =>
      `The support guide now explains the new ${epic.area} behaviour, what a customer sees when it fails and which log line to look ` +
      'for. The changelog entry for v2.0 names the change and links the PR.',
    commit: 'support guide and changelog',
    done: (epic) => `The ${epic.area} behaviour is documented for support and in the v2.0 changelog.`,
  },
];

const PEOPLE = ['Priya', 'Marcus', 'Caroline', 'Jonas'];

type Random = () => number;
const pick = <T>(r: Random, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
const int = (r: Random, low: number, high: number): number => low + Math.floor(r() * (high - low + 1));
const hex = (r: Random, n: number): string => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');

/** Writes the lines of one session: user and assistant messages, tool calls and their results. */
class LogWriter {
  readonly lines: string[] = [];
  private parent: string | null = null;
  private clock: number;
  private n = 0;

  constructor(
    private readonly r: Random,
    private readonly sessionId: string,
    private readonly branch: string,
    startMs: number,
  ) {
    this.clock = startMs;
  }

  private base(type: 'user' | 'assistant'): Record<string, unknown> {
    this.clock += int(this.r, 8, 90) * 1000;
    const uuid = `${this.sessionId.slice(0, 8)}-${String(++this.n).padStart(4, '0')}-4000-8000-${hex(this.r, 12)}`;
    const line = {
      parentUuid: this.parent,
      isSidechain: false,
      userType: 'external',
      cwd: '/home/ana/src/ledgerly',
      sessionId: this.sessionId,
      version: '1.0.51',
      gitBranch: this.branch,
      type,
      uuid,
      timestamp: new Date(this.clock).toISOString(),
    };
    this.parent = uuid;
    return line;
  }

  user(text: string): void {
    this.lines.push(JSON.stringify({ ...this.base('user'), message: { role: 'user', content: text } }));
  }

  text(text: string): void {
    this.assistant([{ type: 'text', text }]);
  }

  /** A tool call and its result; `error` marks a failed command. */
  tool(name: string, input: Record<string, unknown>, result: string, error = false): void {
    const id = `toolu_${hex(this.r, 20)}`;
    this.assistant([{ type: 'tool_use', id, name, input }]);
    const content = [{ type: 'tool_result', tool_use_id: id, content: result, ...(error ? { is_error: true } : {}) }];
    this.lines.push(JSON.stringify({ ...this.base('user'), message: { role: 'user', content } }));
  }

  private assistant(content: unknown[]): void {
    const message = { id: `msg_${hex(this.r, 16)}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content };
    this.lines.push(JSON.stringify({ ...this.base('assistant'), message }));
  }
}

interface Item {
  id: string;
  epic: Epic;
  branch: string;
  /** PR opened for the item once its first commit is in. */
  pr?: string;
  sessions: number;
}

/** The logs, oldest first. */
export function generateAgentSessions(options: AgentSessionOptions = {}): SessionLog[] {
  const r = mulberry32(options.seed ?? 7);
  const start = options.start ?? '2026-10-05';
  const days = options.days ?? 21;
  let nextIssue = 201;
  let nextPr = 405;
  const open: Item[] = [];
  const newItem = (): Item => {
    const epic = EPICS[(nextIssue - 201) % EPICS.length]!;
    const id = `LED-${nextIssue++}`;
    const slug = epic.key;
    return { id, epic, branch: `feat/${id}-${slug}`, sessions: 0 };
  };
  const logs: SessionLog[] = [];
  for (let d = 0; d < days; d++) {
    const day = addDays(start, d);
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    const weekend = weekday === 0 || weekday === 6;
    const count = weekend ? (r() < 0.3 ? 1 : 0) : int(r, 2, 5);
    let minute = int(r, 8 * 60, 9 * 60 + 30);
    for (let s = 0; s < count; s++) {
      // Carry on with an open item two times in three, else start the next one.
      const item = open.length > 0 && r() < 0.66 ? pick(r, open) : newItem();
      if (!open.includes(item)) open.push(item);
      const log = sessionLog(r, day, minute, item, () => `#${nextPr++}`);
      logs.push(log);
      if (item.sessions >= 3 && r() < 0.6) open.splice(open.indexOf(item), 1);
      minute += int(r, 70, 150);
    }
  }
  return logs;
}

function sessionLog(r: Random, day: string, minute: number, item: Item, newPr: () => string): SessionLog {
  const sessionId = `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;
  const startMs = Date.parse(`${day}T00:00:00Z`) + minute * 60_000;
  const w = new LogWriter(r, sessionId, item.branch, startMs);
  const { epic } = item;
  const ids = new Set<string>([item.id]);
  const related = `LED-${int(r, 120, 199)}`;
  const reviewer = pick(r, PEOPLE);
  const [mainFile, secondFile, thirdFile] = epic.files as [string, string, string];
  item.sessions++;
  const first = item.sessions === 1;

  if (first) {
    w.user(
      `Pick up ${item.id}: ${epic.title}. Work on branch \`${item.branch}\`. ${reviewer} reported it; ${related} has the customer's ` +
        'logs. Find the cause first and tell me before changing the design.',
    );
    ids.add(related);
    w.text(`I'll read ${mainFile} and the test first.`);
    w.tool('Read', { file_path: `/home/ana/src/ledgerly/${mainFile}` }, `${int(r, 80, 260)} lines`);
    w.tool('Read', { file_path: `/home/ana/src/ledgerly/${epic.test}` }, `${int(r, 40, 120)} lines`);
    w.text(
      `The cause: ${epic.cause}. I can reproduce it with a test that uses ${int(r, 2, 9)},${int(r, 100, 999)} rows, which fails on ` +
        `the current code. Two ways to fix it: ${epic.decision}, or ${epic.alternative}.`,
    );
    w.user(`Go with the first option. Write the failing test first. Check ${related} afterwards to confirm it covers their case.`);
    w.text(
      `Decision: ${epic.decision}. It keeps the change inside ${mainFile} and ${secondFile}, and the alternative (${epic.alternative}) ` +
        'was rejected.',
    );
  }
  // Real sessions run for hours: several rounds of request, reading, editing, testing and explaining.
  const rounds = first ? int(r, 2, 4) : int(r, 3, 7);
  for (let round = 0; round < rounds; round++) {
    const step = STEPS[(item.sessions + round) % STEPS.length]!;
    if (round > 0 || !first) {
      const ask = step.ask(epic, reviewer);
      w.user(
        round === 0
          ? `Back to ${item.id} (${epic.area}) on \`${item.branch}\`.${item.pr ? ` ${reviewer} left review comments on ${item.pr}.` : ''} ${ask}`
          : ask,
      );
      if (item.pr) ids.add(item.pr);
    }
    w.text(`Let me look at ${mainFile} again.`);
    w.tool('Read', { file_path: `/home/ana/src/ledgerly/${mainFile}` }, `${int(r, 80, 260)} lines`);
    w.tool('Grep', { pattern: epic.key, path: 'src' }, `${int(r, 3, 14)} matches`);
    w.text(step.explain(epic, mainFile, secondFile, int(r, 2, 40)));
    w.tool('Edit', { file_path: `/home/ana/src/ledgerly/${epic.test}`, old_string: 'x', new_string: 'y' }, 'The file has been updated.');
    w.tool('Bash', { command: `npx vitest run ${epic.test}` }, `FAIL ${epic.test}\nTests 1 failed | ${int(r, 4, 12)} passed`, true);
    w.tool('Edit', { file_path: `/home/ana/src/ledgerly/${mainFile}`, old_string: 'a', new_string: 'b' }, 'The file has been updated.');
    w.tool('Edit', { file_path: `/home/ana/src/ledgerly/${secondFile}`, old_string: 'c', new_string: 'd' }, 'The file has been updated.');
    if (r() < 0.5) w.tool('Edit', { file_path: `/home/ana/src/ledgerly/${thirdFile}`, old_string: 'e', new_string: 'f' }, 'Updated.');
    const passed = int(r, 6, 14);
    w.tool('Bash', { command: `npx vitest run ${epic.test}` }, `Test Files 1 passed (1)\nTests ${passed} passed (${passed})`);
    const sha = hex(r, 7);
    const message = `${item.id}: ${step.commit} (${epic.area})`;
    w.tool(
      'Bash',
      { command: `git commit -am "${message}"` },
      `[${item.branch} ${sha}] ${message}\n 3 files changed, ${int(r, 20, 140)} insertions(+)`,
    );
    w.text(`${step.done(epic)} Committed as ${sha} on \`${item.branch}\`; ${epic.test} has ${passed} passing tests.`);
  }
  if (!item.pr && r() < 0.7) {
    item.pr = newPr();
    w.tool('Bash', { command: 'gh pr create --fill --base main' }, `https://github.com/ledgerly/ledgerly/pull/${item.pr.slice(1)}`);
  }
  if (item.pr) ids.add(item.pr);
  const nextItem = `LED-${int(r, 260, 320)}`;
  ids.add(nextItem);
  const prLine = item.pr ? ` PR ${item.pr} is open for review by ${reviewer}.` : '';
  w.text(`Where this stands: ${epic.area} works as decided on \`${item.branch}\`.${prLine} Open: ${epic.next}; I filed it as ${nextItem}.`);
  if (r() < 0.5) {
    const other = `#${int(r, 300, 399)}`;
    ids.add(other);
    w.user(
      `One more thing: does this change touch issue ${other} about the ${pick(r, ['audit log', 'rate limits', 'CSV encoding', 'time zones'])}?`,
    );
    w.tool('Grep', { pattern: other, path: '.' }, 'no matches');
    w.text(
      `No, issue ${other} is about another module and this change does not touch it. It can stay scheduled for after the v2.0 ` +
        'release as planned.',
    );
  }
  return { name: `${sessionId}.jsonl`, text: `${w.lines.join('\n')}\n`, day, ids: [...ids] };
}
