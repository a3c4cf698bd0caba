import type { CampaignSpec } from '../campaign/in-process.ts';
import type { CampaignStatus } from '../campaign/store.ts';
import type { AttemptOutcome, Contact } from '../campaign/types.ts';
import { missingPackages } from '../optional.ts';
import { AGENT_HELP, loadAgent, optionLine, PHRASEBOOK_HELP } from './agent.ts';
import { CliError, numberOption, parseCommand, readText, UsageError } from './args.ts';
import type { CampaignRunDeps } from './campaign-run.ts';
import { docPath } from '../docs-path.ts';

/** `hiwar campaign --help`: every subcommand and option. */
export const CAMPAIGN_USAGE = `Usage: hiwar campaign start CONTACTS.csv [--agent DIR|FILE] [--window "Sun-Thu 09:00-21:00 Asia/Riyadh"]
                      [--concurrency 1] [--retries 2] [--retry-after 2h] [--retry-on LIST] [--dnc FILE] [--id NAME]
                      [--results FILE] [--redis URL] [--from NUMBER] [--platform NAME]
                      [--public-url URL] [--port 8080] [--host 127.0.0.1] [--phrasebook FILE]
       hiwar campaign worker [--agent DIR|FILE] [--redis URL] [--from NUMBER] [--platform NAME]
                      [--public-url URL] [--port 8080] [--host 127.0.0.1] [--phrasebook FILE]
       hiwar campaign status|pause|resume|cancel ID [--redis URL] [--json] [--csv FILE]

Call a list of contacts with an agent: within a calling window (in each contact's time zone),
at most --concurrency calls at once, retries for busy, no-answer, machine-unavailable and failed,
a do-not-call list checked before every dial, and each (contact, attempt) dialled once at most.
See docs/campaigns.md.

  start     reads CONTACTS.csv (a header row: a number column, an optional timezone column,
            every other column a call variable); rows that cannot be called are listed with their
            line and skipped. With Redis (--redis or REDIS_URL) it stores the campaign and enqueues
            one job per contact, for \`hiwar campaign worker\` processes on any machine, and exits;
            without, it runs the campaign in this process (a server for the calls' audio, like
            \`hiwar call\`) and writes each result to --results as it comes
  worker    places the queued campaigns' calls on this instance (Redis)
  status    a campaign's progress; pause, resume, cancel: calls under way finish first

Options:
${optionLine('--agent DIR|FILE', AGENT_HELP, 22)}
  --window TEXT       days, hours and zone: "Sun-Thu 09:00-21:00 Asia/Riyadh" (default: any time)
  --concurrency N     calls of this campaign at once, across every worker (default 1)
  --retries N         attempts after the first for busy / no-answer / machine-unavailable /
                      failed (default 2)
  --retry-after D     wait before a retry: 90s, 15m, 2h, 1d (default 2h)
  --retry-on LIST     the outcomes retried, comma-separated, of busy, no-answer,
                      machine-unavailable, machine-voicemail, failed, canceled,
                      canceled-draining, no-media (default busy,no-answer,
                      machine-unavailable,failed,canceled-draining,no-media)
  --dnc FILE          do-not-call numbers, one a line or a CSV with a number column
  --id NAME           the campaign's id (default: a new one)
  --results FILE      the results CSV of an in-process campaign (default campaign-ID.csv)
  --redis URL         the cluster's Redis (default REDIS_URL)
  --from NUMBER       caller ID (default HIWAR_CALL_FROM)
  --platform NAME     twilio, telnyx, plivo or vonage (default HIWAR_CALL_PLATFORM or the only one set)
  --public-url URL    the address the platform reaches this process at (default HIWAR_PUBLIC_URL)
  --port N            where this process listens (default 8080)
  --host ADDR         (default 127.0.0.1)
${optionLine('--phrasebook FILE', PHRASEBOOK_HELP, 22)}
  --json              status as JSON
  --csv FILE          status: write every contact's result to FILE
  -h, --help          this text

Results also go, signed, to HIWAR_ANALYTICS_WEBHOOK_URL (HIWAR_ANALYTICS_SECRET) when it is set.
`;

const OPTIONS = {
  agent: { type: 'string' },
  window: { type: 'string' },
  concurrency: { type: 'string' },
  retries: { type: 'string' },
  'retry-after': { type: 'string' },
  'retry-on': { type: 'string' },
  dnc: { type: 'string' },
  id: { type: 'string' },
  results: { type: 'string' },
  redis: { type: 'string' },
  from: { type: 'string' },
  platform: { type: 'string' },
  'public-url': { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  json: { type: 'boolean', default: false },
  csv: { type: 'string' },
  phrasebook: { type: 'string' },
} as const;

type Values = NonNullable<ReturnType<typeof parseCommand<typeof OPTIONS>>>;

/** `hiwar campaign start|worker|status|pause|resume|cancel`. */
export async function campaignCommand(args: string[], deps: CampaignRunDeps = {}): Promise<number> {
  const positional = args.filter((a, i) => !a.startsWith('-') && !(i > 0 && args[i - 1]!.startsWith('--') && !['--json', '--help', '-h'].includes(args[i - 1]!)));
  const values = parseCommand(args.filter((a) => !positional.includes(a)), OPTIONS, CAMPAIGN_USAGE);
  if (!values) return 0;
  const [action, target, ...extra] = positional;
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`, CAMPAIGN_USAGE);
  const say = (m: string) => process.stdout.write(`${m}\n`);
  switch (action) {
    case 'start':
      if (!target) throw new UsageError('give the contacts file: hiwar campaign start contacts.csv', CAMPAIGN_USAGE);
      return start(target, values, say, deps);
    case 'worker':
      return (await import('./campaign-run.ts')).worker(values, redisUrl(values, true)!, say, deps);
    case 'status':
    case 'pause':
    case 'resume':
    case 'cancel':
      if (!target) throw new UsageError(`give the campaign's id: hiwar campaign ${action} ID`, CAMPAIGN_USAGE);
      return control(action, target, values, say);
    default:
      throw new UsageError(action ? `unknown campaign command "${action}"` : 'give a campaign command: start, worker, status, pause, resume or cancel', CAMPAIGN_USAGE);
  }
}

function redisUrl(values: Values, required: boolean): string | undefined {
  const url = values.redis ?? (process.env.REDIS_URL || undefined);
  if (!url && required) throw new UsageError('no Redis: set REDIS_URL or pass --redis (campaigns without Redis run in the `hiwar campaign start` process itself)', CAMPAIGN_USAGE);
  // Before Redis is tried: a missing package is no "cannot reach Redis", and both are named at once.
  const missing = url ? missingPackages('A campaign on Redis (REDIS_URL)', ['ioredis', 'bullmq'], 'docs/campaigns.md#on-a-cluster') : undefined;
  if (missing) throw new CliError(missing);
  return url;
}

/** Reads the files and options into a campaign; prints the rows that will not be called. */
async function spec(file: string, values: Values, say: (m: string) => void): Promise<CampaignSpec> {
  const [{ parseContacts, parseDoNotCall }, { campaignSettings, parseDuration, CAMPAIGN_DEFAULTS }, { parseWindow }, { missingVariables }] = await Promise.all([
    import('../campaign/contacts.ts'),
    import('../campaign/schedule.ts'),
    import('../campaign/window.ts'),
    import('../session/variables.ts'),
  ]);
  const usage = (err: unknown, option: string) => new UsageError(`--${option}: ${(err as Error).message}`, CAMPAIGN_USAGE);
  let window;
  try {
    window = values.window === undefined ? undefined : parseWindow(values.window);
  } catch (err) {
    throw usage(err, 'window');
  }
  let retryAfterMs: number = CAMPAIGN_DEFAULTS.retryAfterMs;
  try {
    if (values['retry-after'] !== undefined) retryAfterMs = parseDuration(values['retry-after']);
  } catch (err) {
    throw usage(err, 'retry-after');
  }
  const retryOn = values['retry-on'] === undefined ? undefined : retryOutcomes(values['retry-on']);
  const settings = campaignSettings({
    ...(window ? { window } : {}),
    ...(retryOn ? { retryOn } : {}),
    concurrency: values.concurrency === undefined ? CAMPAIGN_DEFAULTS.concurrency : numberOption('concurrency', values.concurrency, 1, 1000, CAMPAIGN_USAGE, true),
    retries: values.retries === undefined ? CAMPAIGN_DEFAULTS.retries : numberOption('retries', values.retries, 0, 20, CAMPAIGN_USAGE, true),
    retryAfterMs,
  });
  let parsed;
  try {
    parsed = parseContacts(await readText(file, 'contacts'));
  } catch (err) {
    throw err instanceof CliError ? err : new CliError(`${file}: ${(err as Error).message}`);
  }
  let doNotCall: Set<string> = new Set();
  if (values.dnc) {
    try {
      doNotCall = parseDoNotCall(await readText(values.dnc, '--dnc'));
    } catch (err) {
      throw err instanceof CliError ? err : new CliError(`--dnc ${values.dnc}: ${(err as Error).message}`);
    }
  }
  // The agent's placeholders ({name}) must be filled by each row: a row that lacks one is not called.
  const { agent } = await loadAgent(values.agent);
  const contacts: Contact[] = [];
  const bad = [...parsed.bad];
  for (const c of parsed.contacts) {
    const missing = missingVariables(agent, { ...c.variables, From: '-', To: c.number });
    if (missing.length) bad.push({ line: c.line!, message: `no value for ${missing.map((m) => `{${m}}`).join(', ')} (agent "${agent.name}")` });
    else contacts.push(c);
  }
  for (const b of bad.sort((x, y) => x.line - y.line)) process.stderr.write(`${file}:${b.line}: ${b.message}; not called\n`);
  if (!contacts.length) throw new CliError(`${file}: no contact can be called`);
  // Contacts on the list stay in the campaign (their result says do-not-call) but are never dialled.
  const listed = onDoNotCall({ contacts, doNotCall });
  if (listed === contacts.length) throw new CliError(`${file}: no contact can be called (every one is on the do-not-call list ${values.dnc})`);
  say(toCallLine(contacts.length - listed, bad.length, listed));
  return { ...(values.id ? { id: values.id } : {}), contacts, settings, doNotCall, agent: agent.name };
}

/** `n` things, singular or plural: "1 contact", "2 contacts". */
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** How many of a campaign's contacts are on its do-not-call list. */
function onDoNotCall(s: Pick<CampaignSpec, 'contacts' | 'doNotCall'>): number {
  const list = new Set(s.doNotCall ?? []);
  return s.contacts.filter((c) => list.has(c.number)).length;
}

/**
 * What `campaign start` says before it starts: the contacts it will dial, then those it will not
 * and why (rows that cannot be called, listed above it; contacts on the do-not-call list).
 */
export function toCallLine(toCall: number, badRows: number, listed: number): string {
  const skipped = [
    ...(badRows ? [`${count(badRows, 'row')} that cannot be called (above)`] : []),
    ...(listed ? [`${count(listed, 'contact')} on the do-not-call list`] : []),
  ];
  return `${count(toCall, 'contact')} to call${skipped.length ? `; not called: ${skipped.join(', ')}` : ''}`;
}

async function start(file: string, values: Values, say: (m: string) => void, deps: CampaignRunDeps): Promise<number> {
  const s = await spec(file, values, say);
  const redis = redisUrl(values, false);
  if (!redis) return (await import('./campaign-run.ts')).inProcess(s, values, say, deps);
  const { probeRedis } = await import('../cluster/redis.ts');
  await probeRedis(redis).catch((err: Error) => {
    throw new CliError(`cannot reach Redis: ${err.message}`);
  });
  const { CampaignQueue } = await import('../campaign/queue.ts');
  const queue = new CampaignQueue(redis);
  try {
    const meta = await queue.start(s).catch((err: Error) => {
      throw new CliError(err.message);
    });
    const listed = onDoNotCall(s);
    const marked = listed ? ` (${listed} on the do-not-call list: marked so, never dialled)` : '';
    say(`campaign ${meta.id}: ${meta.total} contacts queued${marked}; \`hiwar campaign worker\` processes place the calls (hiwar campaign status ${meta.id})`);
  } finally {
    await queue.close();
  }
  return 0;
}

async function control(action: 'status' | 'pause' | 'resume' | 'cancel', id: string, values: Values, say: (m: string) => void): Promise<number> {
  const url = redisUrl(values, true)!;
  const { probeRedis } = await import('../cluster/redis.ts');
  await probeRedis(url).catch((err: Error) => {
    throw new CliError(`cannot reach Redis: ${err.message}`);
  });
  const [{ CampaignQueue }, { controlCampaign }, { statusOf }] = await Promise.all([import('../campaign/queue.ts'), import('../campaign/in-process.ts'), import('../campaign/store.ts')]);
  const queue = new CampaignQueue(url);
  try {
    const meta = await queue.store.meta(id);
    if (!meta) throw new CliError(`no campaign ${id}`);
    if (action !== 'status') {
      const state = await controlCampaign(queue.store, id, action).catch((err: Error) => {
        throw new CliError(err.message);
      });
      // Waiting jobs act at once: a resumed contact is dialled, a cancelled one marked.
      if (action !== 'pause') await queue.wake(id);
      say(`campaign ${id}: ${state}`);
      return 0;
    }
    const states = await queue.store.contacts(id);
    const status = statusOf(meta, states);
    if (values.csv) {
      const { writeFile } = await import('node:fs/promises');
      const { resultsCsv } = await import('../campaign/results.ts');
      await writeFile(values.csv, resultsCsv(id, states));
    }
    say(values.json ? JSON.stringify(status) : describe(status));
    return 0;
  } finally {
    await queue.close();
  }
}

/** Outcomes a campaign may retry: the platform's and the detector's, never `invalid` or `failed-unknown`. */
const RETRYABLE = ['busy', 'no-answer', 'machine-unavailable', 'machine-voicemail', 'failed', 'canceled', 'canceled-draining', 'no-media'] as const;

function retryOutcomes(text: string): AttemptOutcome[] {
  const list = text.split(',').map((t) => t.trim()).filter(Boolean);
  const bad = list.find((t) => !(RETRYABLE as readonly string[]).includes(t));
  if (bad !== undefined) throw new UsageError(`--retry-on: "${bad}" is not an outcome that can be retried (${RETRYABLE.join(', ')})`, CAMPAIGN_USAGE);
  return list as AttemptOutcome[];
}

/** A campaign's status for a person. */
export function describe(s: CampaignStatus): string {
  const list = (r: Record<string, number>) => Object.entries(r).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  // Dials that reached no phone, and why: a platform out of reach shows here, not as calls placed.
  const notPlaced = s.notPlaced ? [`  not dialled: ${list(s.notPlaced)} (${docPath('docs/campaigns.md#results')})`] : [];
  // A busy contact waiting for its retry was in no line but `pending`.
  const retrying = s.retrying && s.nextRetryAt !== undefined ? [`  retrying: ${list(s.retrying)} (the first not before ${new Date(s.nextRetryAt).toISOString().replace('T', ' ').slice(0, 19)} UTC)`] : [];
  return [`campaign ${s.id}: ${s.state}, ${count(s.total, 'contact')}, ${count(s.dials, 'call')} placed`, `  contacts: ${list(s.contacts)}`, `  outcomes: ${list(s.outcomes)}`, ...retrying, ...notPlaced].join('\n');
}
