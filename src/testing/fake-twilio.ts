/**
 * A fake Twilio for testing placed calls (`placeCall`, `outboundCalls`, `hiwar call`, campaigns)
 * in your own CI, no account: Twilio's Calls resource on a local port (create, update to hang up
 * or cancel, fetch), each request recorded, and the called phone played as the test scripts it:
 * the status callbacks, signed as Twilio signs them, and, once answered, the call's media stream
 * (silence from the callee, marks echoed as Twilio does) until the callee hangs up or the call is
 * hung up. Anything else is answered with Twilio's 404 JSON, never a crash.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { twilioSignature } from '../server/twilio-signature.ts';

/** How the called phone behaves: answered, busy, never answered, or failed (no such number). */
export type FakePhone = 'answer' | 'busy' | 'no-answer' | 'failed';

/** A Call resource's `status`, as Twilio's page lists them. */
export type FakeCallStatus = 'queued' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled';

/** How `startFakeTwilio` plays Twilio (each one's default in `FAKE_TWILIO_DEFAULTS`). */
export interface FakeTwilioOptions {
  /** The account the fake plays; requests for another are 404, with other credentials 401. */
  accountSid?: string;
  /** The auth token: Basic auth is checked with it, and the callbacks are signed with it. */
  authToken?: string;
  /** The port to listen on (0: a free one; `url` says which). */
  port?: number;
  host?: string;
  /** How the phone at `to` behaves on this call. */
  phone?: (to: string) => FakePhone;
  /** How long a phone rings before it is answered (or gives up: no-answer). */
  ringMs?: number;
  /** How long an answered callee listens before hanging up. */
  talkMs?: number;
}

/** The fake's defaults: a placeholder account, a phone that rings 1 s and listens 6 s. */
export const FAKE_TWILIO_DEFAULTS = {
  accountSid: 'AC0123456789abcdef0123456789abcdef',
  authToken: 'test-token',
  port: 0,
  host: '127.0.0.1',
  /** Every phone answers. */
  phone: (): FakePhone => 'answer',
  ringMs: 1000,
  talkMs: 6000,
} satisfies Required<FakeTwilioOptions>;

/** One request as the fake received it, and how it answered. */
export interface FakeTwilioRequest {
  method: string;
  path: string;
  /** The form fields (repeated ones, such as `StatusCallbackEvent`, with each value). */
  form: URLSearchParams;
  /** Whether its Basic auth named the fake's account and token. */
  authorized: boolean;
  /** The HTTP status the fake answered. */
  status: number;
}

/** One status callback the fake sent, and what the server answered. */
export interface FakeTwilioCallback {
  sid: string;
  url: string;
  /** `CallStatus`: initiated, ringing, in-progress, then how the call ended. */
  status: string;
  /** The server's HTTP status (0: it could not be reached). */
  answered: number;
}

/** A call the fake placed. */
export interface FakeTwilioCall {
  sid: string;
  to: string;
  from: string;
  status: FakeCallStatus;
  /** Seconds from answer to hang-up, once it ended answered. */
  durationS?: number;
  /** When it was created and answered (RFC 2822, as the resource's dates). */
  created: string;
  answered?: string;
}

/** A running fake Twilio: where it listens, what it received and sent, its calls. */
export interface FakeTwilio {
  /** The API's base URL: give it to hiwar as `HIWAR_TWILIO_API_URL` (or `twilioOutbound({ baseUrl })`). */
  readonly url: string;
  readonly accountSid: string;
  readonly authToken: string;
  /** Every request received, in order (stray ones too). */
  readonly requests: FakeTwilioRequest[];
  /** Every status callback sent, in order. */
  readonly callbacks: FakeTwilioCallback[];
  /** The calls placed, by SID. */
  readonly calls: ReadonlyMap<string, FakeTwilioCall>;
  /** Resolves with the call once its last status callback was answered (the first call to `to` when a number is given). */
  ended(sidOrTo: string): Promise<FakeTwilioCall>;
  /** Hangs up every call and stops listening. */
  close(): Promise<void>;
}

const TERMINAL = new Set<FakeCallStatus>(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

/** An XML attribute's text: the five predefined entities back to their characters (`&amp;` last). */
export const xmlUnescape = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/** Twilio's error body (twilio.com/docs/usage/twilios-response): `code`, `message`, `more_info`, `status`. */
const error = (status: number, code: number, message: string) => ({ status, body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status } });

interface Live {
  call: FakeTwilioCall;
  form: URLSearchParams;
  /** Ends the ringing (a cancel) or the answered call (a hang-up). */
  stop?: () => void;
  ended: Promise<FakeTwilioCall>;
  done: (c: FakeTwilioCall) => void;
  seq: number;
}

/** Starts a fake Twilio REST API on a local port. Close it after the test. */
export async function startFakeTwilio(options: FakeTwilioOptions = {}): Promise<FakeTwilio> {
  const o = { ...FAKE_TWILIO_DEFAULTS, ...options };
  const requests: FakeTwilioRequest[] = [];
  const callbacks: FakeTwilioCallback[] = [];
  const live = new Map<string, Live>();
  const calls = new Map<string, FakeTwilioCall>();
  const sockets = new Set<WebSocket>();
  const base = `/2010-04-01/Accounts/${o.accountSid}/Calls`;
  const basic = `Basic ${Buffer.from(`${o.accountSid}:${o.authToken}`).toString('base64')}`;

  /** The Call resource as Twilio's page shows it, filled in with the call's own fields. */
  const resource = (c: FakeTwilioCall) => ({
    account_sid: o.accountSid,
    annotation: null,
    answered_by: null,
    api_version: '2010-04-01',
    caller_name: null,
    date_created: c.created,
    date_updated: new Date().toUTCString(),
    direction: 'outbound-api',
    duration: c.durationS === undefined ? (TERMINAL.has(c.status) ? '0' : null) : String(c.durationS),
    end_time: TERMINAL.has(c.status) ? new Date().toUTCString() : null,
    forwarded_from: null,
    from: c.from,
    from_formatted: c.from,
    group_sid: null,
    parent_call_sid: null,
    phone_number_sid: null,
    price: null,
    price_unit: 'USD',
    sid: c.sid,
    start_time: c.answered ?? null,
    status: c.status,
    subresource_uris: { notifications: `${base}/${c.sid}/Notifications.json`, recordings: `${base}/${c.sid}/Recordings.json` },
    to: c.to,
    to_formatted: c.to,
    trunk_sid: null,
    uri: `${base}/${c.sid}.json`,
    queue_time: '0',
  });

  /** A status callback, form-encoded and signed with the auth token as Twilio signs them. */
  const report = async (l: Live, status: string, event: string, extra: Record<string, string> = {}): Promise<void> => {
    const url = l.form.get('StatusCallback');
    const asked = l.form.getAll('StatusCallbackEvent').flatMap((e) => e.split(' '));
    // Twilio sends the events asked for; the call's end (completed and its kin) always.
    if (!url || (event !== 'completed' && !asked.includes(event))) return;
    const c = l.call;
    const params: Record<string, string> = { AccountSid: o.accountSid, ApiVersion: '2010-04-01', CallSid: c.sid, CallStatus: status, Called: c.to, Caller: c.from, Direction: 'outbound-api', From: c.from, To: c.to, SequenceNumber: String(l.seq++), Timestamp: new Date().toUTCString(), ...extra };
    let answered = 0;
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(o.authToken, url, params) }, body: new URLSearchParams(params) });
      answered = res.status;
      await res.arrayBuffer();
    } catch {
      // The server is gone: the callback is lost, as Twilio's would be.
    }
    callbacks.push({ sid: c.sid, url, status, answered });
  };

  const end = async (l: Live, status: FakeCallStatus, extra: Record<string, string> = {}) => {
    l.call.status = status;
    l.stop = undefined;
    await report(l, status, 'completed', extra);
    l.done(l.call);
  };

  /** The callee answered: the TwiML's `<Stream>` gets the call's media until `talkMs` or a hang-up. */
  const media = (l: Live): Promise<void> =>
    new Promise((resolve) => {
      // Attributes are read as written, then each value unescaped (an escaped quote stays inside its value).
      const twiml = l.form.get('Twiml') ?? '';
      const url = /<Stream url="([^"]+)"/.exec(twiml)?.[1];
      const streamUrl = url && xmlUnescape(url);
      const customParameters = Object.fromEntries([...twiml.matchAll(/<Parameter name="([^"]+)" value="([^"]*)"/g)].map((m) => [xmlUnescape(m[1]!), xmlUnescape(m[2]!)]));
      const streamSid = `MZ${l.call.sid.slice(2)}`;
      let silence: NodeJS.Timeout | undefined;
      const over = setTimeout(() => finish(), o.talkMs);
      const ws = streamUrl ? new WebSocket(streamUrl) : undefined;
      const finish = () => {
        clearTimeout(over);
        clearInterval(silence);
        if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ event: 'stop', streamSid, stop: { accountSid: o.accountSid, callSid: l.call.sid } }));
        ws?.close();
        resolve();
      };
      l.stop = finish;
      if (!ws) return;
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('error', () => {}); // a refused stream: the call still lasts its talkMs, as a callee who hears nothing
      ws.on('open', () => {
        ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
        ws.send(JSON.stringify({ event: 'start', streamSid, start: { streamSid, accountSid: o.accountSid, callSid: l.call.sid, tracks: ['inbound'], customParameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } }));
        // μ-law silence (0xff), 20 ms a frame.
        silence = setInterval(() => ws.send(JSON.stringify({ event: 'media', streamSid, media: { track: 'inbound', payload: Buffer.alloc(160, 0xff).toString('base64') } })), 20);
      });
      ws.on('message', (data) => {
        // Twilio answers each mark once the audio before it has played.
        let m: { event?: string; mark?: unknown };
        try {
          m = JSON.parse(String(data)) as typeof m;
        } catch {
          return; // not Twilio's protocol: Twilio ignores it too
        }
        if (m?.event === 'mark' && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ event: 'mark', streamSid, mark: m.mark }));
      });
    });

  /** The call's life after the create request was answered. */
  const life = async (l: Live): Promise<void> => {
    await report(l, 'initiated', 'initiated');
    const phone = o.phone(l.call.to);
    if (phone === 'failed') return end(l, 'failed');
    l.call.status = 'ringing';
    await report(l, 'ringing', 'ringing');
    const cancelled = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), phone === 'busy' ? 0 : o.ringMs);
      l.stop = () => (clearTimeout(timer), resolve(true));
    });
    if (cancelled) return end(l, 'canceled');
    if (phone !== 'answer') return end(l, phone);
    l.call.status = 'in-progress';
    const answeredAt = Date.now();
    l.call.answered = new Date(answeredAt).toUTCString();
    await report(l, 'in-progress', 'answered');
    await media(l);
    l.call.durationS = Math.round((Date.now() - answeredAt) / 1000);
    await end(l, 'completed', { CallDuration: String(l.call.durationS) });
  };

  const handle = (req: IncomingMessage, form: URLSearchParams): { status: number; body: unknown } => {
    const path = (req.url ?? '').split('?')[0]!;
    const authorized = req.headers.authorization === basic;
    const notFound = error(404, 20404, `The requested resource ${path} was not found`);
    const mine = path === `${base}.json` || path.startsWith(`${base}/`);
    if (!mine) return notFound;
    if (!authorized) return error(401, 20003, 'Authenticate');
    if (path === `${base}.json` && req.method === 'POST') {
      const [to, from] = [form.get('To'), form.get('From')];
      if (!to) return error(400, 21201, "No 'To' number is specified");
      if (!from) return error(400, 21213, "No 'From' number is specified");
      if (!form.get('Twiml') && !form.get('Url')) return error(400, 21205, 'Url or Twiml is required');
      const sid = `CA${randomBytes(16).toString('hex')}`; // unique across fakes, as Twilio's
      let done!: (c: FakeTwilioCall) => void;
      const call: FakeTwilioCall = { sid, to, from, status: 'queued', created: new Date().toUTCString() };
      const l: Live = { call, form, ended: new Promise((r) => (done = r)), done: (c) => done(c), seq: 0 };
      live.set(sid, l);
      calls.set(sid, call);
      const body = resource(call);
      void life(l);
      return { status: 201, body };
    }
    const m = /^\/([^/]+)\.json$/.exec(path.slice(base.length));
    const l = m ? live.get(m[1]!) : undefined;
    if (!l) return notFound;
    if (req.method === 'GET') return { status: 200, body: resource(l.call) };
    if (req.method !== 'POST') return error(405, 20004, `Method not allowed: ${req.method}`);
    const status = form.get('Status');
    if (status !== 'canceled' && status !== 'completed') return error(400, 21218, `Invalid Status: ${status ?? '(none)'}: canceled or completed`);
    // canceled hangs up a queued or ringing call and leaves one in progress alone; completed hangs up either.
    const ringing = l.call.status === 'queued' || l.call.status === 'ringing';
    if (l.stop && (ringing || status === 'completed')) {
      l.stop();
      l.call.status = ringing ? 'canceled' : 'completed';
    }
    return { status: 200, body: resource(l.call) };
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(String(req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded') ? Buffer.concat(parts).toString() : '');
      const { status, body } = handle(req, form);
      requests.push({ method: req.method ?? '', path: req.url ?? '', form, authorized: req.headers.authorization === basic, status });
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const url = `http://${o.host}:${(server.address() as AddressInfo).port}`;

  return {
    url,
    accountSid: o.accountSid,
    authToken: o.authToken,
    requests,
    callbacks,
    calls,
    ended(sidOrTo) {
      const l = live.get(sidOrTo) ?? [...live.values()].find((x) => x.call.to === sidOrTo);
      if (!l) return Promise.reject(new Error(`fake Twilio: no call ${sidOrTo} was placed`));
      return l.ended;
    },
    async close() {
      for (const l of live.values()) l.stop?.();
      for (const ws of sockets) ws.terminate();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
