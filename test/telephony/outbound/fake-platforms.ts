/**
 * Twilio, Telnyx, Plivo and Vonage as a placed call meets them, in one local HTTP server: the
 * REST request is checked for its credentials and answered with the documented body
 * (`fixtures.ts`), then the call lives its scripted life: signed status callbacks to the URLs
 * the request named and, when the call is answered, a media stream to the URL it gave, played by
 * the test (`onMedia`) as the platform's far end.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject, type KeyPairKeyObjectResult } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importSPKI, jwtVerify, SignJWT } from 'jose';
import { plivoSignature } from '../../../transports/telephony/plivo.ts';
import { twilioSignature } from '../../../transports/telephony/twilio.ts';
import type { PlatformProtocol } from '../far-end.ts';
import { plivoProtocol, telnyxProtocol, vonageProtocol } from '../protocols.ts';
import { twilioProtocol } from '../twilio-protocol.ts';
import { platformFixture } from '../fixture-files.ts';
import * as F from './fixtures.ts';
import { xmlUnescape } from '../../../src/testing/fake-twilio.ts';

/** The platforms' call resources as their pages show them (test/fixtures/platforms/<platform>/call-resource.json). */
const R = Object.fromEntries(['twilio', 'telnyx', 'plivo', 'vonage'].map((p) => [p, platformFixture(p, 'call-resource.json')])) as Record<'twilio' | 'telnyx' | 'plivo' | 'vonage', Record<string, any>>;
/** The platforms' cancel requests as their pages show them, and the callback that follows (test/fixtures/platforms/<platform>/cancel.json). */
const C = Object.fromEntries(['twilio', 'telnyx', 'plivo', 'vonage'].map((p) => [p, platformFixture(p, 'cancel.json')])) as Record<'twilio' | 'telnyx' | 'plivo' | 'vonage', Record<string, any>>;
/** The platforms' hang-up requests of an answered call as their pages show them, and the callback that follows (…/hangup.json). */
const H = Object.fromEntries(['twilio', 'telnyx', 'plivo', 'vonage'].map((p) => [p, platformFixture(p, 'hangup.json')])) as Record<'twilio' | 'telnyx' | 'plivo' | 'vonage', Record<string, any>>;

/** How the called phone behaves. */
export type Scenario = 'answer' | 'busy' | 'no-answer' | 'failed';
/** How a call ended: as its phone behaved, or hung up by a cancel request while it rang. */
export type Ending = Scenario | 'canceled';

/** One REST request as the platform received it. */
export interface Received {
  platform: string;
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
  /** Form fields (every value of a repeated field). */
  form?: URLSearchParams;
  json?: any;
}

/** The answered call's media, for the test to play the far end on. */
export interface MediaLeg {
  platform: string;
  /** The platform's id of the call (what its stream's `start` names). */
  platformCallId: string;
  streamUrl: string;
  protocol: PlatformProtocol;
}

/** A callback the platform sent, and what hiwar answered. */
export interface SentCallback {
  platform: string;
  url: string;
  status: string;
  answered: number;
  body: string;
}

/**
 * The key pairs, made once per process: a 2048-bit RSA pair takes a few hundred milliseconds of
 * CPU, and the tests of a process each asked for a pair of their own (1.9 s over a run).
 */
let keyPairs: { telnyx: KeyPairKeyObjectResult; vonage: KeyPairKeyObjectResult } | undefined;

/** The test credentials of the four platforms (keys made here, never real ones; secrets new each time). */
export function testKeys() {
  keyPairs ??= { telnyx: generateKeyPairSync('ed25519'), vonage: generateKeyPairSync('rsa', { modulusLength: 2048 }) };
  const { telnyx, vonage } = keyPairs;
  return {
    twilio: { accountSid: `AC${randomBytes(16).toString('hex')}`, authToken: randomBytes(16).toString('hex') },
    telnyx: {
      apiKey: `KEY${randomBytes(16).toString('hex')}`,
      connectionId: '1494404757140276705',
      privateKey: telnyx.privateKey,
      // The portal shows the raw 32-byte key in base64: the last 32 bytes of the SPKI DER.
      publicKey: telnyx.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64'),
    },
    plivo: { authId: `MA${randomBytes(9).toString('hex').toUpperCase()}`, authToken: randomBytes(20).toString('hex') },
    vonage: {
      applicationId: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
      privateKey: vonage.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      publicKey: vonage.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
      signatureSecret: randomBytes(24).toString('hex'),
    },
  };
}
export type TestKeys = ReturnType<typeof testKeys>;


/** The four platforms' REST APIs on one local port. */
export class FakePlatforms {
  readonly received: Received[] = [];
  readonly callbacks: SentCallback[] = [];
  /** Answers of Twilio's `<Connect action>` asked after the stream ended. */
  readonly afterAnswers: string[] = [];
  /** Why a call's scripted life stopped short (its far end failed), for a test's failure message. */
  readonly errors: string[] = [];
  /** Calls whose scripted life has finished (their last callback sent), by platform call id. */
  readonly finished = new Set<string>();
  /** Calls over on the platform: their last callback is on its way (set as it is sent, before hiwar answers it). */
  readonly over = new Set<string>();
  /** How each call ended, for its call resource (`GET`), by the platform's id (Plivo: the leg's). */
  readonly ended = new Map<string, { scenario: Ending; durationS: number }>();
  /** The cancel requests taken (hang-ups of calls not answered yet), as received. */
  readonly cancels: Received[] = [];
  /** Calls ringing now, by each of their platform ids: cancelling one ends its ringing. */
  private readonly ringingNow = new Map<string, () => void>();
  /** The hang-up requests taken (of answered calls), as received. */
  readonly hangups: Received[] = [];
  /** Answered calls live now, by the platform id a hang-up names (Plivo: the leg's call_uuid): hanging one up ends it. */
  private readonly answeredNow = new Map<string, () => void>();
  /** The call resources asked for (`GET`), by path. */
  readonly fetched: string[] = [];
  /** The platform's own log of each call's life: dialled (the REST request taken), answered (as its answered callback goes), hung up (as its last one goes). */
  readonly log: { id: string; event: 'dialled' | 'answered' | 'hangup'; at: number }[] = [];
  url = '';
  private server!: Server;
  private n = 0;

  constructor(
    readonly keys: TestKeys,
    private readonly o: {
      /** How the phone at `to` behaves on this call (`id`: the platform's call id). */
      scenario(to: string, id: string): Scenario;
      onMedia(leg: MediaLeg): Promise<void>;
      durationS?: number;
      /** The phone rings until this resolves (after the ringing callback; Telnyx: call.initiated), then `scenario` says how it ends; a cancel request ends it sooner. */
      ringing?(to: string, id: string): Promise<void>;
      /** The call's callbacks after its first ones are lost (sent to an instance that died): only the call resource tells how it ended. */
      lost?(to: string): boolean;
      /** A callback whose connection failed is sent again this many times, a second apart, as platforms retry webhooks. @default 0 */
      callbackRetries?: number;
      /**
       * Each callback on a connection of its own (closed after it), as a platform's callbacks
       * come from many of its hosts: behind `--workers`, they reach the workers in turn. @default
       * false (one kept-alive connection)
       */
      freshConnections?: boolean;
    },
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        void this.handle(req, Buffer.concat(parts).toString()).then(
          ({ status, body }) => {
            // A 204 carries no body.
            if (status === 204) return void res.writeHead(204).end();
            res.writeHead(status, { 'content-type': 'application/json' });
            res.end(JSON.stringify(body));
          },
          (err: Error) => {
            res.writeHead(500);
            res.end(err.message);
          },
        );
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage, raw: string): Promise<{ status: number; body: unknown }> {
    const path = req.url ?? '';
    const k = this.keys;
    const id = `${++this.n}`.padStart(4, '0');
    const type = String(req.headers['content-type'] ?? '');
    const rec: Received = { platform: '', method: req.method ?? '', path, headers: req.headers, raw };
    if (type.includes('application/x-www-form-urlencoded')) rec.form = new URLSearchParams(raw);
    if (type.includes('application/json')) rec.json = JSON.parse(raw);
    const basic = (u: string, p: string) => req.headers.authorization === `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

    if (path === `/2010-04-01/Accounts/${k.twilio.accountSid}/Calls.json`) {
      this.received.push({ ...rec, platform: 'twilio' });
      if (!basic(k.twilio.accountSid, k.twilio.authToken)) return { status: 401, body: { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 } };
      const to = rec.form!.get('To')!;
      if (to.length < 12) return { status: 400, body: F.twilioError };
      const sid = `CA${id}${'0'.repeat(28)}`;
      void this.twilioLife(sid, rec.form!).catch((err: Error) => this.errors.push(err.message));
      return { status: 201, body: F.twilioCreated(sid, k.twilio.accountSid, to, rec.form!.get('From')!) };
    }
    if (path === '/v2/calls') {
      this.received.push({ ...rec, platform: 'telnyx' });
      if (req.headers.authorization !== `Bearer ${k.telnyx.apiKey}`) return { status: 401, body: { errors: [{ code: '10009', title: 'Authentication failed', detail: 'The API key is invalid.' }] } };
      if (String(rec.json?.to ?? '').length < 12) return { status: 422, body: F.telnyxError };
      const ccid = `v3:call-${id}`;
      void this.telnyxLife(ccid, rec.json).catch((err: Error) => this.errors.push(err.message));
      return { status: 200, body: F.telnyxDialed(ccid) };
    }
    if (path === `/v1/Account/${k.plivo.authId}/Call/`) {
      this.received.push({ ...rec, platform: 'plivo' });
      if (!basic(k.plivo.authId, k.plivo.authToken)) return { status: 401, body: { api_id: 'x', error: 'authentication failed' } };
      if (String(rec.json?.to ?? '').length < 11) return { status: 400, body: F.plivoError };
      const requestUuid = `9834029e-58b6-11e1-b8b7-a5bd0e4e${id}`;
      void this.plivoLife(`call-${id}`, requestUuid, rec.json).catch((err: Error) => this.errors.push(err.message));
      return { status: 201, body: F.plivoFired(requestUuid) };
    }
    if (path === '/v1/calls') {
      this.received.push({ ...rec, platform: 'vonage' });
      const jwt = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
      try {
        const { payload } = await jwtVerify(jwt, await importSPKI(k.vonage.publicKey, 'RS256'), { algorithms: ['RS256'] });
        if (payload.application_id !== k.vonage.applicationId) throw new Error('another application');
      } catch {
        return { status: 401, body: { type: 'https://developer.nexmo.com/api-errors#unauthorized', title: 'Invalid credentials supplied', detail: 'You did not provide correct credentials.' } };
      }
      if (String(rec.json?.to?.[0]?.number ?? '').length < 11) return { status: 400, body: F.vonageError };
      const uuid = `63f61863-4a51-4f6b-86e1-46edebcf${id}`;
      void this.vonageLife(uuid, rec.json).catch((err: Error) => this.errors.push(err.message));
      return { status: 201, body: F.vonageCreated(uuid) };
    }
    if (req.method === 'GET') return this.resource(req, path);
    const cancel = await this.cancel(req, path, rec);
    if (cancel) return cancel;
    return { status: 404, body: { error: `no such route ${path}` } };
  }

  /** Each platform's call resource (test/fixtures/platforms/<platform>/call-resource.json), filled in with how the call stands. */
  private async resource(req: IncomingMessage, path: string): Promise<{ status: number; body: unknown }> {
    this.fetched.push(path);
    const k = this.keys;
    const basic = (u: string, p: string) => req.headers.authorization === `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
    const [route, query] = path.split('?') as [string, string | undefined];
    let m = new RegExp(`^/2010-04-01/Accounts/${k.twilio.accountSid}/Calls/([^/]+)\\.json$`).exec(route);
    if (m) {
      if (!basic(k.twilio.accountSid, k.twilio.authToken)) return { status: 401, body: { code: 20003, message: 'Authenticate', status: 401 } };
      const e = this.ended.get(m[1]!);
      const status = !e ? 'in-progress' : e.scenario === 'answer' ? 'completed' : e.scenario;
      return { status: 200, body: { ...R.twilio.completed, sid: m[1], account_sid: k.twilio.accountSid, status, duration: e?.scenario === 'answer' ? String(e.durationS) : e ? '0' : null } };
    }
    m = /^\/v2\/calls\/([^/]+)$/.exec(route);
    if (m) {
      if (req.headers.authorization !== `Bearer ${k.telnyx.apiKey}`) return { status: 401, body: { errors: [{ code: '10009', title: 'Authentication failed' }] } };
      const id = decodeURIComponent(m[1]!);
      return { status: 200, body: { data: { ...R.telnyx.ended.data, call_control_id: id, is_alive: !this.ended.has(id) } } };
    }
    m = new RegExp(`^/v1/Account/${k.plivo.authId}/Call/([^/]+)/$`).exec(route);
    if (m) {
      if (!basic(k.plivo.authId, k.plivo.authToken)) return { status: 401, body: { error: 'authentication failed' } };
      const e = this.ended.get(m[1]!);
      const notFound = { status: 404, body: { api_id: 'x', error: 'call not found' } };
      if (query === 'status=live') return e || !m[1]!.startsWith('call-') ? notFound : { status: 200, body: { ...R.plivo.live, call_uuid: m[1] } };
      if (query) return notFound;
      if (!e) return notFound;
      const cause = { answer: 'Normal Hangup', busy: 'Busy Line', 'no-answer': 'No Answer', failed: 'Rejected', canceled: 'Canceled' }[e.scenario];
      return { status: 200, body: { ...R.plivo.completed, call_uuid: m[1], hangup_cause_name: cause, call_state: e.scenario === 'answer' ? 'ANSWER' : 'BUSY', answer_time: e.scenario === 'answer' ? R.plivo.completed.answer_time : null, call_duration: e.scenario === 'answer' ? e.durationS : 0 } };
    }
    m = /^\/v1\/calls\/([^/]+)$/.exec(route);
    if (m) {
      const jwt = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
      try {
        await jwtVerify(jwt, await importSPKI(k.vonage.publicKey, 'RS256'), { algorithms: ['RS256'] });
      } catch {
        return { status: 401, body: { title: 'Invalid credentials supplied' } };
      }
      const e = this.ended.get(m[1]!);
      const status = !e ? 'answered' : e.scenario === 'answer' ? 'completed' : { busy: 'busy', 'no-answer': 'timeout', failed: 'failed', canceled: 'cancelled' }[e.scenario];
      return { status: 200, body: { ...R.vonage.completed, uuid: m[1], status, duration: String(e?.scenario === 'answer' ? e.durationS : 0) } };
    }
    return { status: 404, body: { error: `no such route ${path}` } };
  }

  /**
   * A cancel request (cancel.json of each platform): checked for its credentials, it ends the
   * ringing of the call it names (404 when none rings by that id; Telnyx 422, a call already over).
   */
  private async cancel(req: IncomingMessage, path: string, rec: Received): Promise<{ status: number; body: unknown } | undefined> {
    const k = this.keys;
    const basic = (u: string, p: string) => req.headers.authorization === `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
    const hangUp = (platform: 'twilio' | 'telnyx' | 'plivo' | 'vonage', id: string, authorized: boolean, ok: { status: number; body?: unknown }, over: number) => {
      if (!authorized) return { status: 401, body: { error: 'authentication failed' } };
      const stop = this.ringingNow.get(id);
      const end = this.answeredNow.get(id);
      if (!stop && !end) return { status: over, body: { error: `no call ${id} to hang up` } };
      (stop ? this.cancels : this.hangups).push({ ...rec, platform });
      (stop ?? end)!();
      return stop ? { status: ok.status, body: ok.body } : { status: H[platform].response.status, body: H[platform].response.body };
    };
    const [route] = path.split('?') as [string];
    let m = new RegExp(`^/2010-04-01/Accounts/${k.twilio.accountSid}/Calls/([^/]+)\.json$`).exec(route);
    if (m && req.method === 'POST' && rec.form?.get('Status') === 'canceled') {
      const sid = m[1]!;
      const resource = (status: string) => ({ ...R.twilio.completed, sid, account_sid: k.twilio.accountSid, status, duration: '0' });
      // A call answered or over is not affected ("will not affect calls already in progress"): the resource says how it stands.
      const live = this.log.some((e) => e.id === sid) && !this.ringingNow.has(sid);
      if (live && basic(k.twilio.accountSid, k.twilio.authToken)) {
        const e = this.ended.get(sid);
        return { status: 200, body: resource(!e ? 'in-progress' : e.scenario === 'answer' ? 'completed' : e.scenario) };
      }
      return hangUp('twilio', sid, basic(k.twilio.accountSid, k.twilio.authToken), { status: C.twilio.response.status, body: resource(C.twilio.response.statusField) }, 404);
    }
    // Status=completed hangs up an answered call (hangup.json).
    if (m && req.method === 'POST' && rec.form?.get('Status') === 'completed') {
      const sid = m[1]!;
      if (!basic(k.twilio.accountSid, k.twilio.authToken)) return { status: 401, body: { error: 'authentication failed' } };
      const end = this.answeredNow.get(sid);
      if (!end) return { status: 404, body: { error: `no call ${sid} in progress` } };
      this.hangups.push({ ...rec, platform: 'twilio' });
      end();
      return { status: H.twilio.response.status, body: { ...R.twilio.completed, sid, account_sid: k.twilio.accountSid, status: H.twilio.response.statusField } };
    }
    m = /^\/v2\/calls\/([^/]+)\/actions\/hangup$/.exec(route);
    if (m && req.method === 'POST') return hangUp('telnyx', decodeURIComponent(m[1]!), req.headers.authorization === `Bearer ${k.telnyx.apiKey}`, C.telnyx.response, 422);
    m = new RegExp(`^/v1/Account/${k.plivo.authId}/Call/([^/]+)/$`).exec(route);
    if (m && req.method === 'DELETE') return hangUp('plivo', m[1]!, basic(k.plivo.authId, k.plivo.authToken), C.plivo.response, 404);
    m = /^\/v1\/calls\/([^/]+)$/.exec(route);
    if (m && req.method === 'PUT' && rec.json?.action === 'hangup') {
      const jwt = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
      const signed = await jwtVerify(jwt, await importSPKI(k.vonage.publicKey, 'RS256'), { algorithms: ['RS256'] }).then(
        ({ payload }) => payload.application_id === k.vonage.applicationId,
        () => false,
      );
      return hangUp('vonage', m[1]!, signed, C.vonage.response, 404);
    }
    return undefined;
  }

  /** The phone rings until the test's `ringing` lets it go on (false), or a cancel request naming one of `ids` hangs it up (true). */
  private async rings(ids: string[], to: string): Promise<boolean> {
    let cancel!: () => void;
    const cancelled = new Promise<true>((r) => (cancel = () => r(true)));
    for (const id of ids) this.ringingNow.set(id, cancel);
    try {
      return await Promise.race([Promise.resolve(this.o.ringing?.(to, ids[0]!)).then(() => false), cancelled]);
    } finally {
      for (const id of ids) this.ringingNow.delete(id);
    }
  }

  /** The answered call lives until its media ends (false), or a hang-up request naming one of `ids` ends it (true). */
  private async live(ids: string[], media: Promise<void>): Promise<boolean> {
    let end!: () => void;
    const hungUp = new Promise<true>((r) => (end = () => r(true)));
    for (const id of ids) this.answeredNow.set(id, end);
    try {
      return await Promise.race([media.then(() => false), hungUp]);
    } finally {
      for (const id of ids) this.answeredNow.delete(id);
    }
  }

  /** Sends one callback as the platform signs it (or forged: signed with another key); returns hiwar's answer. */
  async callback(platform: string, url: string, status: string, fields: Record<string, unknown>, opts: { form?: boolean; forge?: boolean } = {}): Promise<{ status: number; body: string }> {
    const body = opts.form ? new URLSearchParams(fields as Record<string, string>).toString() : JSON.stringify(fields);
    const headers: Record<string, string> = { 'content-type': opts.form ? 'application/x-www-form-urlencoded' : 'application/json' };
    const k = this.keys;
    const secretOf = (s: string) => (opts.forge ? `${s}-forged` : s);
    if (platform === 'twilio') headers['x-twilio-signature'] = twilioSignature(secretOf(k.twilio.authToken), url, fields as Record<string, string>);
    if (platform === 'plivo') {
      const nonce = randomBytes(8).toString('hex');
      headers['x-plivo-signature-v3-nonce'] = nonce;
      headers['x-plivo-signature-v3'] = plivoSignature(secretOf(k.plivo.authToken), 'POST', url, fields as Record<string, string>, nonce);
    }
    if (platform === 'telnyx') {
      const ts = String(Math.floor(Date.now() / 1000));
      const key: KeyObject = opts.forge ? generateKeyPairSync('ed25519').privateKey : k.telnyx.privateKey;
      headers['telnyx-timestamp'] = ts;
      headers['telnyx-signature-ed25519'] = sign(null, Buffer.from(`${ts}|${body}`), key).toString('base64');
    }
    if (platform === 'vonage') {
      const jwt = await new SignJWT({ payload_hash: createHash('sha256').update(body).digest('hex') })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt()
        // Vonage's signed callbacks carry a unique jti; hiwar accepts each once.
        .setJti(randomUUID())
        .sign(new TextEncoder().encode(secretOf(k.vonage.signatureSecret)));
      headers.authorization = `Bearer ${jwt}`;
    }
    let res: Response;
    for (let left = this.o.callbackRetries ?? 0; ; left--) {
      try {
        res = this.o.freshConnections ? await postAlone(url, headers, body) : await fetch(url, { method: 'POST', headers, body });
        break;
      } catch (err) {
        // The instance behind the URL died with the connection: the platform tries again (on another, behind a balancer).
        if (left <= 0) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    const text = await res.text();
    this.callbacks.push({ platform, url, status, answered: res.status, body: text });
    return { status: res.status, body: text };
  }

  private async twilioLife(sid: string, form: URLSearchParams): Promise<void> {
    const [to, from, url] = [form.get('To')!, form.get('From')!, form.get('StatusCallback')!];
    const send = (status: string, seq: number, d?: number) => this.callback('twilio', url, status, F.twilioStatus(sid, this.keys.twilio.accountSid, to, from, status, seq, d), { form: true });
    this.note(sid, 'dialled');
    await send('initiated', 0);
    await send('ringing', 1);
    if (await this.rings([sid], to)) return this.end(sid, send(C.twilio.callback.CallStatus, 2), 'canceled');
    const s = this.o.scenario(to, sid);
    if (this.o.lost?.(to)) return this.lose(sid, s);
    if (s !== 'answer') return this.end(sid, send(s, 2), s);
    this.note(sid, 'answered');
    await send('in-progress', 2);
    const twiml = form.get('Twiml')!;
    const streamUrl = xmlUnescape(/<Stream url="([^"]+)"/.exec(twiml)![1]!);
    const params = Object.fromEntries([...twiml.matchAll(/<Parameter name="([^"]+)" value="([^"]*)"\/>/g)].map((m) => [xmlUnescape(m[1]!), xmlUnescape(m[2]!)]));
    if (await this.live([sid], this.o.onMedia({ platform: 'twilio', platformCallId: sid, streamUrl, protocol: twilioProtocol(sid, params) }))) {
      return this.end(sid, send(H.twilio.callback.CallStatus, 3, this.o.durationS ?? 12), 'answer');
    }
    // The stream ended: Twilio asks the <Connect action> what to do next.
    const action = xmlUnescape(/<Connect action="([^"]+)"/.exec(twiml)![1]!);
    const after = { AccountSid: this.keys.twilio.accountSid, CallSid: sid, CallStatus: 'in-progress', From: from, To: to };
    this.afterAnswers.push((await this.callback('twilio', action, 'after', after, { form: true })).body);
    await this.end(sid, send('completed', 3, this.o.durationS ?? 12), 'answer');
  }

  private async telnyxLife(ccid: string, dial: any): Promise<void> {
    const send = (event: string, extra: Record<string, string> = {}) => this.callback('telnyx', dial.webhook_url, event, F.telnyxEvent(event, ccid, dial.client_state, dial.to, dial.from, extra));
    this.note(ccid, 'dialled');
    await send('call.initiated');
    if (await this.rings([ccid], dial.to)) return this.end(ccid, send(C.telnyx.callback.event_type, { hangup_cause: C.telnyx.callback.hangup_cause, hangup_source: C.telnyx.callback.hangup_source }), 'canceled');
    const s = this.o.scenario(dial.to, ccid);
    if (this.o.lost?.(dial.to)) return this.lose(ccid, s);
    const cause = { busy: 'user_busy', 'no-answer': 'timeout', failed: 'unspecified', answer: 'normal_clearing' }[s];
    if (s !== 'answer') return this.end(ccid, send('call.hangup', { hangup_cause: cause, hangup_source: 'callee' }), s);
    this.note(ccid, 'answered');
    await send('call.answered');
    if (await this.live([ccid], this.o.onMedia({ platform: 'telnyx', platformCallId: ccid, streamUrl: dial.stream_url, protocol: telnyxProtocol(ccid) }))) {
      const { event_type, ...fields } = H.telnyx.callback;
      return this.end(ccid, send(event_type, fields), 'answer');
    }
    await this.end(ccid, send('call.hangup', { hangup_cause: cause, hangup_source: 'callee', start_time: '2018-02-02T22:25:27.521992Z', end_time: '2018-02-02T22:25:39.521992Z' }), s);
  }

  private async plivoLife(callUuid: string, requestUuid: string, call: any): Promise<void> {
    const send = (url: string, status: string, extra: Record<string, string> = {}) => this.callback('plivo', url, status, F.plivoCallback(callUuid, requestUuid, call.to, call.from, status, extra), { form: true });
    this.note(callUuid, 'dialled');
    await send(call.ring_url, 'ringing');
    // A call not answered yet is cancelled by its request_uuid.
    if (await this.rings([callUuid, requestUuid], `+${call.to}`)) {
      const { CallStatus, ...fields } = C.plivo.callback;
      return this.end(callUuid, send(call.hangup_url, CallStatus, fields), 'canceled');
    }
    const s = this.o.scenario(`+${call.to}`, callUuid);
    if (this.o.lost?.(`+${call.to}`)) return this.lose(callUuid, s);
    const hangupCause = { busy: 'USER_BUSY', 'no-answer': 'NO_ANSWER', failed: 'CALL_REJECTED', answer: 'NORMAL_CLEARING' }[s];
    if (s !== 'answer') return this.end(callUuid, send(call.hangup_url, s, { HangupCause: hangupCause, Duration: '0', BillDuration: '0' }), s);
    // Answered: Plivo fetches the answer URL and runs the XML it returns.
    this.note(callUuid, 'answered');
    const { body: xml } = await send(call.answer_url, 'in-progress');
    const streamUrl = xmlUnescape(/<Stream [^>]*>([^<]+)<\/Stream>/.exec(xml)![1]!);
    const d = String(this.o.durationS ?? 12);
    // An answered call is hung up by its call_uuid (hangup.json), not by the dial's request_uuid.
    if (await this.live([callUuid], this.o.onMedia({ platform: 'plivo', platformCallId: callUuid, streamUrl, protocol: plivoProtocol(callUuid) }))) {
      const { CallStatus, ...fields } = H.plivo.callback;
      return this.end(callUuid, send(call.hangup_url, CallStatus, { ...fields, Duration: d, BillDuration: '60' }), 'answer');
    }
    await this.end(callUuid, send(call.hangup_url, 'completed', { HangupCause: hangupCause, Duration: d, BillDuration: '60' }), s);
  }

  private async vonageLife(uuid: string, call: any): Promise<void> {
    const [to, from, url] = [call.to[0].number, call.from.number, call.event_url[0]];
    const send = (status: string, extra: Record<string, string> = {}) => this.callback('vonage', url, status, F.vonageEvent(uuid, to, from, status, extra));
    this.note(uuid, 'dialled');
    await send('started');
    await send('ringing');
    if (await this.rings([uuid], `+${to}`)) return this.end(uuid, send(C.vonage.callback.status), 'canceled');
    const s = this.o.scenario(`+${to}`, uuid);
    if (this.o.lost?.(`+${to}`)) return this.lose(uuid, s);
    if (s !== 'answer') return this.end(uuid, send({ busy: 'busy', 'no-answer': 'timeout', failed: 'failed' }[s]), s);
    this.note(uuid, 'answered');
    await send('answered');
    const ep = call.ncco[0].endpoint[0];
    if (await this.live([uuid], this.o.onMedia({ platform: 'vonage', platformCallId: uuid, streamUrl: ep.uri, protocol: vonageProtocol(ep.headers) }))) {
      return this.end(uuid, send(H.vonage.callback.status, { duration: String(this.o.durationS ?? 12) }), 'answer');
    }
    await this.end(uuid, send('completed', { duration: String(this.o.durationS ?? 12), start_time: '2020-01-01T12:00:00.000Z', end_time: '2020-01-01T12:00:12.000Z' }), s);
  }

  private note(id: string, event: 'dialled' | 'answered' | 'hangup'): void {
    this.log.push({ id, event, at: performance.now() });
  }

  private async end(id: string, last: Promise<unknown>, scenario: Ending): Promise<void> {
    this.note(id, 'hangup');
    this.over.add(id);
    await last;
    this.ended.set(id, { scenario, durationS: this.o.durationS ?? 12 });
    this.finished.add(id);
  }

  /** The call ends as scripted, but its callbacks never arrive (no media either): only its resource says how. */
  private async lose(id: string, scenario: Exclude<Scenario, 'answer'> | 'answer'): Promise<void> {
    this.note(id, 'hangup');
    this.ended.set(id, { scenario, durationS: this.o.durationS ?? 12 });
    this.finished.add(id);
  }
}

/** A POST on a connection of its own, closed after the answer (no pool to keep it alive). */
function postAlone(url: string, headers: Record<string, string>, body: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve(new Response(res.statusCode === 204 ? null : Buffer.concat(parts), { status: res.statusCode ?? 0 })));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * `hiwar serve`'s environment for outbound calls through the fake Twilio at `fakeUrl` alone: its
 * keys, the calls API's secret and a caller ID; no other platform, Redis or public URL from the
 * shell. `more` on top (the service's key and address, the log level).
 */
export function fakeTwilioServeEnv(keys: TestKeys, fakeUrl: string, callsSecret: string, more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TWILIO_ACCOUNT_SID: keys.twilio.accountSid, TWILIO_AUTH_TOKEN: keys.twilio.authToken, HIWAR_TWILIO_API_URL: fakeUrl, HIWAR_CALLS_SECRET: callsSecret, HIWAR_CALL_FROM: '+966110000000', ...more };
  for (const k of ['TELNYX_API_KEY', 'PLIVO_AUTH_ID', 'VONAGE_APPLICATION_ID', 'HIWAR_PUBLIC_URL', 'REDIS_URL', 'HIWAR_CALL_PLATFORM']) if (!(k in more)) delete env[k];
  return env;
}

/** A GET on a connection of its own: behind `hiwar serve --workers`, each goes to the next worker. */
export function getAlone(url: string, auth: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { authorization: auth }, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** FakePlatforms' options for a phone that rings until the call is cancelled and is never answered; `rang()` says whether it rang. */
export function ringsUntilCancelled(): { options: ConstructorParameters<typeof FakePlatforms>[1]; rang: () => boolean } {
  let rang = false;
  return {
    options: {
      scenario: () => 'no-answer',
      ringing: () => ((rang = true), new Promise<void>(() => {})),
      onMedia: async () => {
        throw new Error('no call is answered');
      },
    },
    rang: () => rang,
  };
}

/** `POST /calls` to the server at `base` with the calls secret: the placed call's id (fails with the answer unless 201). */
export async function placeCall(base: string, secret: string, to = '+966500000001'): Promise<string> {
  const res = await fetch(`${base}/calls`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ to }) });
  const placed = await res.text();
  if (res.status !== 201) throw new Error(`POST /calls answered ${res.status}: ${placed}`);
  return (JSON.parse(placed) as { id: string }).id;
}
