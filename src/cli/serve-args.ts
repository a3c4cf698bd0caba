/**
 * `hiwar serve`'s usage, its flags, and the checks of their values that run before any port is
 * looked at or anything starts (a bad value is said as itself, not as a port in use or after the
 * sandbox's minute of start-up).
 */
import { analyticsEnv, recordingsFolder } from '../analytics/options.ts';
import { checkOtelInstalled, otelRequested } from '../observability/otel-setup.ts';
import { AGENT_HELP, agentModuleFile, optionLine, PHRASEBOOK_HELP } from './agent.ts';
import { ensureWritableFolder, numberOption, publicUrlOption, readText, UsageError, type Values } from './args.ts';
import { cliLogger } from './log.ts';
import { CLUSTER_FLAGS, CLUSTER_USAGE } from './serve-cluster.ts';
import { isServeWorker, workerCount, WORKERS_FLAG, WORKERS_HELP } from './serve-workers.ts';
import { GC_FLAG, GC_HELP, gcMode } from './serve-gc.ts';

export const SERVE_USAGE = `Usage: hiwar serve [--config FILE] [--agent DIR|FILE] [--port 8080] [--host 127.0.0.1] [--public-url URL]
                   [--max-calls 200] [--drain-timeout 600] [--media-token TOKEN] [--audiosocket-port N]
                   [--model-ids vendor|spec] [--analytics] [--recordings DIR] [--phrasebook FILE] [--otel]
                   [--docs] [--workers N|auto] [--gc single|parallel|auto]
                   [--webrtc-start first-use|eager] [--open]

Serve an agent to telephony platforms (/telephony/<provider>) and, when mediasoup is installed, to
browsers (a call page at /, docs/webrtc.md), with /healthz, /readyz, /metrics and the calls in
progress at /calls/live (docs/observability.md). Uses the real
service when HIWAR_API_KEY is set, else the embedded sandbox, whose recognizer knows only the
agent's intent examples, the --phrasebook and what it voiced itself (the call page lists them).
See docs/telephony.md.

Options:
  --config FILE          a module (hiwar.config.ts, .mts, .js or .mjs) default-exporting the
                         server's options (createAgentServer in hiwar/server: agent or agentFor per
                         call, providerHooks, plugins…; docs/server.md); flags given as well win
${optionLine('--agent DIR|FILE', AGENT_HELP, 25)}
  --port N               port to listen on (default 8080; 0 picks a free one)
  --host ADDR            address to bind (default 127.0.0.1; nothing is open without secrets, on any address)
  --public-url URL       the address platforms reach this server at, for webhook answers
  --max-calls N          concurrent calls before new ones are refused, media connections not
                         started yet included (default 200)
  --drain-timeout S      on SIGTERM, how long the calls in progress may go on (default 600); then
                         each caller hears the agent's out-of-service line and is hung up. Set it
                         below your orchestrator's kill grace (Kubernetes: 30 s by default)
  --media-token TOKEN    fixed media token for FreeSWITCH, Asterisk, jambonz, pcm (or HIWAR_MEDIA_TOKEN)
  --audiosocket-port N   also take Asterisk AudioSocket calls on this TCP port
  --model-ids KIND       vendor (default) or spec model names
  --analytics            record calls and analyze each after it ends: as jobs for hiwar worker when
                         REDIS_URL is set, else in this process (also on when
                         HIWAR_ANALYTICS_WEBHOOK_URL is set); see docs/analytics.md
  --recordings DIR       with --analytics, where recordings and results go (default recordings, or
                         HIWAR_RECORDINGS_DIR); refused without it, which alone records calls.
                         With --analytics, a browser reviews the recorded calls at /calls (the
                         list) and /calls/<id> (audio, turns, latencies, analytics), closed
                         without HIWAR_REVIEW_SECRET; docs/call-review.md
${optionLine('--phrasebook FILE', PHRASEBOOK_HELP, 25)}
  --otel                 export OpenTelemetry traces (a trace per call: turns, replies, model,
                         synthesis, playout, tools, failures) over OTLP HTTP to
                         OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318); also on when
                         that variable is set; needs the SDK packages (docs/observability.md)
  --docs                 serve the guide shipped with the package (its docs/ pages) as HTML at
                         /docs, for reading in a browser offline; public, no secret (docs/server.md)
${WORKERS_HELP}
${GC_HELP}
  --webrtc-start WHEN    first-use (default): mediasoup is loaded and its workers started by the
                         first browser call (the call page, a room token or a join), so telephony
                         alone never pays for them; eager: at start-up, a worker that cannot start
                         turning WebRTC off there (docs/webrtc.md#when-the-media-workers-start)
  --open                 development only: routes with no secret configured are open (unsigned
                         webhooks, media without a token, /webrtc/token without a secret)
  -h, --help             this text

Secrets (environment): TWILIO_AUTH_TOKEN, TELNYX_PUBLIC_KEY, PLIVO_AUTH_TOKEN,
VONAGE_SIGNATURE_SECRET, EXOTEL_BASIC_AUTH, JAMBONZ_WEBHOOK_SECRET check webhook signatures (their
answers hand out one-call media tokens); HIWAR_MEDIA_TOKEN opens the media URLs of FreeSWITCH,
Asterisk, jambonz and pcm; HIWAR_WEBRTC_SECRET guards POST /webrtc/token; HIWAR_CALLS_SECRET guards
POST /calls (outbound calls) and GET /calls/live (the live calls view), both closed without it even
with --open (docs/outbound.md, docs/observability.md); HIWAR_REVIEW_SECRET guards the call review
pages (GET /calls and /calls/<id> from a browser, with --analytics; closed without it even with
--open). Without --open a route
whose secret is missing is closed, on localhost too; the start-up lines say which. See
docs/security.md.
Logs: one readable line per record on stderr at HIWAR_LOG_LEVEL (default info); HIWAR_LOG_FORMAT=json
prints pino's JSON lines instead. Keys a caller presses are never logged unless HIWAR_LOG_KEYS=1.
JAMBONZ_MARKS=0: the listen verbs answered ask for no playout marks, for a jambonz whose
mod_audio_fork reports none (docs/telephony.md#jambonz-listen).

${CLUSTER_USAGE}`;

/** The options of `hiwar serve`. */
export const SERVE_FLAGS = {
  config: { type: 'string' },
  agent: { type: 'string' },
  phrasebook: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'public-url': { type: 'string' },
  'max-calls': { type: 'string' },
  'drain-timeout': { type: 'string' },
  'media-token': { type: 'string' },
  'audiosocket-port': { type: 'string' },
  'model-ids': { type: 'string' },
  ...CLUSTER_FLAGS,
  ...WORKERS_FLAG,
  ...GC_FLAG,
  analytics: { type: 'boolean', default: false },
  recordings: { type: 'string' },
  otel: { type: 'boolean', default: false },
  docs: { type: 'boolean', default: false },
  'webrtc-start': { type: 'string' },
  open: { type: 'boolean', default: false },
} as const;

/** What the flags said, checked (undefined where a flag was not given). */
export interface ServeArgs {
  portFlag: number | undefined;
  maxCallsFlag: number | undefined;
  drainTimeoutS: number | undefined;
  audioSocketPort: number | undefined;
  modelIds: 'vendor' | 'spec' | undefined;
  webrtcStart: 'first-use' | 'eager' | undefined;
  phrasebookLines: string[];
  /**
   * Analytics's recordings folder (`--recordings`, else HIWAR_RECORDINGS_DIR, else the default),
   * found writable; undefined when analytics is off. Chosen here once: analytics keeps its
   * recordings in the folder that was checked.
   */
  recordingsDir: string | undefined;
}

/** Every flag's value checked; throws a `UsageError` naming the flag. Touches no port. */
export async function checkServeArgs(values: Values<typeof SERVE_FLAGS>): Promise<ServeArgs> {
  const num = (flag: string, raw: string | undefined, min: number, max: number) => (raw === undefined ? undefined : numberOption(flag, raw, min, max, SERVE_USAGE, true));
  const portFlag = num('port', values.port, 0, 65535);
  const maxCallsFlag = num('max-calls', values['max-calls'], 1, 100_000);
  const drainTimeoutS = num('drain-timeout', values['drain-timeout'], 1, 86_400);
  const audioSocketPort = num('audiosocket-port', values['audiosocket-port'], 0, 65535);
  publicUrlOption(values['public-url'], SERVE_USAGE); // said before anything starts
  const modelIds = values['model-ids'];
  if (modelIds !== undefined && modelIds !== 'vendor' && modelIds !== 'spec') throw new UsageError(`--model-ids must be "vendor" or "spec", got "${modelIds}"`, SERVE_USAGE);
  const webrtcStart = values['webrtc-start'];
  if (webrtcStart !== undefined && webrtcStart !== 'first-use' && webrtcStart !== 'eager') throw new UsageError(`--webrtc-start must be "first-use" or "eager", got "${webrtcStart}"`, SERVE_USAGE);
  // Every argument is checked before a port is looked at or anything starts: a bad value is said
  // as itself, not as a port in use or after the sandbox's minute of start-up.
  workerCount(values.workers, SERVE_USAGE);
  gcMode(values.gc, SERVE_USAGE);
  if (values.agent !== undefined) agentModuleFile(values.agent);
  if (otelRequested(values.otel!)) checkOtelInstalled();
  const phrasebookLines = values.phrasebook !== undefined ? (await readText(values.phrasebook, '--phrasebook')).split('\n') : [];
  // Analytics writes each call's recording and results there: a folder it cannot write in was
  // found at the end of the first call.
  let recordingsDir: string | undefined;
  if (values.analytics! || !!analyticsEnv().webhookUrl) {
    const { dir, named } = recordingsFolder(values.recordings);
    await ensureWritableFolder(dir, named);
    recordingsDir = dir;
  } else {
    recordingsWithoutAnalytics(values.recordings, isServeWorker());
  }
  return { portFlag, maxCallsFlag, drainTimeoutS, audioSocketPort, modelIds, webrtcStart, phrasebookLines, recordingsDir };
}

/**
 * Only analytics records calls: `--recordings` without it did nothing, silently, and the operator
 * found no recording after the first calls. The flag is refused; HIWAR_RECORDINGS_DIR, often in
 * an environment shared with `hiwar worker`, is said once (not by each --workers child).
 */
function recordingsWithoutAnalytics(flag: string | undefined, worker: boolean): void {
  if (flag !== undefined) {
    throw new UsageError(`--recordings only says where analytics keeps the calls it records, and analytics is off: add --analytics to record calls (or drop --recordings)`, SERVE_USAGE);
  }
  const fromEnv = analyticsEnv().recordingsDir;
  // Before the server's logger exists (a config may bring its own): the CLI's, with its format and level.
  if (fromEnv && !worker) cliLogger('info').warn({ HIWAR_RECORDINGS_DIR: fromEnv }, 'HIWAR_RECORDINGS_DIR is set but analytics is off: no call is recorded; add --analytics to record them');
}
