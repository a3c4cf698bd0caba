/**
 * The web call page: joins a room with a token, sends the microphone, plays every other voice in
 * the room, and shows the agent's session as it happens (captions of both sides, state, latency).
 * A supervisor (token role) hears both sides and may take the call over.
 */
import { Device, type types } from 'mediasoup-client';
import type { CallEvent, Notification, PeerRole, RequestMethod, Requests, ResponseMessage, SourceLabel, TransportParams } from '../protocol.ts';
import { showPhrases } from './phrases.ts';
import { Transcript, type Line } from './transcript.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = {
  join: $<HTMLButtonElement>('join'),
  leave: $<HTMLButtonElement>('leave'),
  takeover: $<HTMLButtonElement>('takeover'),
  download: $<HTMLButtonElement>('download'),
  status: $('status'),
  state: $('state'),
  mic: $<HTMLMeterElement>('mic-level'),
  agent: $<HTMLMeterElement>('agent-level'),
  captions: $('captions'),
  latency: $('latency'),
  phrases: $('phrases'),
  phraseList: $('phrase-list'),
};

const STATE_LABELS: Record<string, string> = { listening: 'يستمع', thinking: 'يفكر', speaking: 'يتحدث', starting: 'يبدأ', ended: 'انتهى' };
const WHO: Record<Line['who'], string> = { user: 'المتصل', agent: 'الوكيل', supervisor: 'المشرف' };

/** What the page measured, for people (meters) and for the end-to-end test (window.hiwar). */
const stats = {
  joined: false,
  role: '' as PeerRole | '',
  state: 'idle',
  ended: '',
  /** Seconds of audible audio received from each source, and its peak RMS level (0..1). */
  received: {} as Partial<Record<SourceLabel, { audibleSeconds: number; peakRms: number }>>,
  micPeakRms: 0,
  errors: [] as string[],
  /** The phrases the offline recognizer knows, as listed on the page. */
  phrases: [] as string[],
};
let started = 0;
const transcript = new Transcript(() => (performance.now() - started) / 1000);
(window as unknown as { hiwar: unknown }).hiwar = { stats, transcript };

class Signaling {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly opened: Promise<void>;

  constructor(
    private readonly ws: WebSocket,
    onNotification: (n: Notification) => void,
    onClose: () => void,
  ) {
    this.opened = new Promise((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error('signaling connection failed'));
    });
    ws.onmessage = (ev) => {
      const msg = JSON.parse(String(ev.data)) as ResponseMessage | Notification;
      if ('notification' in msg) return onNotification(msg);
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.ok) p?.resolve(msg.data);
      else p?.reject(Object.assign(new Error(msg.error), { redirect: msg.redirect }));
    };
    ws.onclose = () => {
      for (const p of this.pending.values()) p.reject(new Error('signaling closed'));
      this.pending.clear();
      onClose();
    };
  }

  request<M extends RequestMethod>(method: M, data: Requests[M]['req']): Promise<Requests[M]['res']> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, data }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
  }

  close(): void {
    this.ws.close();
  }
}

let signaling: Signaling | undefined;
let device: Device | undefined;
let sendTransport: types.Transport | undefined;
let recvTransport: types.Transport | undefined;
let audioCtx: AudioContext | undefined;
let micStream: MediaStream | undefined;
const meterTimers: number[] = [];

function setStatus(text: string): void {
  ui.status.textContent = text;
}

function render(): void {
  ui.captions.replaceChildren(
    ...transcript.lines
      .filter((l) => l.text)
      .map((l) => {
        const p = document.createElement('p');
        p.className = `caption ${l.who}${l.open ? ' interim' : ''}${l.cut ? ' cut' : ''}`;
        p.dir = 'rtl';
        const who = document.createElement('span');
        who.className = 'who';
        who.textContent = `${WHO[l.who]}:`;
        const text = document.createElement('bdi');
        text.textContent = l.text;
        p.append(who, text);
        return p;
      }),
  );
  ui.captions.scrollTop = ui.captions.scrollHeight;
  ui.latency.replaceChildren(
    ...transcript.latencies.map((ms, i) => {
      const li = document.createElement('li');
      li.textContent = `الدور ${i + 1}: ${ms} ms`;
      return li;
    }),
  );
  ui.download.disabled = !transcript.lines.some((l) => l.text);
}

function onCall(e: CallEvent): void {
  // An offline server learns the phrases of the agent chosen for this call before it starts, and
  // those of an agent a handoff reaches that no agent listed: the list is asked for again then.
  if ((e.type === 'state' && stats.state === 'idle') || e.type === 'agent_turn') showKnownPhrases();
  if (e.type === 'state') {
    stats.state = e.state;
    ui.state.dataset.state = e.state;
    ui.state.textContent = STATE_LABELS[e.state] ?? e.state;
  }
  transcript.apply(e);
  render();
}

/** RMS level of an audio stream, sampled every 50 ms into `onLevel`. */
function watchLevel(stream: MediaStream, onLevel: (rms: number) => void): void {
  audioCtx ??= new AudioContext();
  const analyser = audioCtx.createAnalyser();
  analyser.fftSize = 1024;
  audioCtx.createMediaStreamSource(stream).connect(analyser);
  const buf = new Float32Array(analyser.fftSize);
  meterTimers.push(
    window.setInterval(() => {
      analyser.getFloatTimeDomainData(buf);
      let sum = 0;
      for (const v of buf) sum += v * v;
      onLevel(Math.sqrt(sum / buf.length));
    }, 50),
  );
}

async function consume(n: Extract<Notification, { notification: 'newConsumer' }>['data']): Promise<void> {
  if (!recvTransport || !signaling) return;
  const consumer = await recvTransport.consume({ id: n.id, producerId: n.producerId, kind: n.kind, rtpParameters: n.rtpParameters as types.RtpParameters });
  const stream = new MediaStream([consumer.track]);
  // Chromium delivers a remote track to Web Audio only while a media element also plays it.
  const el = new Audio();
  el.srcObject = stream;
  el.dataset.source = n.source;
  document.body.append(el);
  void el.play().catch(() => {});
  const seen = (stats.received[n.source] ??= { audibleSeconds: 0, peakRms: 0 });
  watchLevel(stream, (rms) => {
    seen.peakRms = Math.max(seen.peakRms, rms);
    if (rms > 0.01) seen.audibleSeconds += 0.05;
    if (n.source !== 'supervisor') ui.agent.value = Math.min(1, rms * 4);
  });
  await signaling.request('resumeConsumer', { consumerId: consumer.id });
}

async function sendMicrophone(): Promise<void> {
  if (!device || !signaling) return;
  const sig = signaling;
  micStream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
  watchLevel(micStream, (rms) => {
    stats.micPeakRms = Math.max(stats.micPeakRms, rms);
    ui.mic.value = Math.min(1, rms * 4);
  });
  const params = await sig.request('createTransport', { direction: 'send' });
  sendTransport = device.createSendTransport(params as types.TransportOptions);
  sendTransport.on('connect', ({ dtlsParameters }, ok, fail) => void sig.request('connectTransport', { transportId: params.id, dtlsParameters }).then(() => ok(), fail));
  sendTransport.on('produce', ({ rtpParameters }, ok, fail) =>
    void sig.request('produce', { transportId: params.id, kind: 'audio', rtpParameters }).then(({ producerId }) => ok({ id: producerId }), fail),
  );
  await sendTransport.produce({ track: micStream.getAudioTracks()[0]!, codecOptions: { opusStereo: false, opusDtx: false, opusFec: true } });
}

async function recvParams(sig: Signaling): Promise<TransportParams> {
  return sig.request('createTransport', { direction: 'recv' });
}

/** The token: given in the page's address by the user's backend, or (open servers) asked for. */
async function roomToken(): Promise<string> {
  const q = new URLSearchParams(location.search);
  const given = q.get('token');
  if (given) return given;
  const res = await fetch('/webrtc/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ room: q.get('room') ?? undefined, role: q.get('role') ?? 'caller' }),
  });
  const body = (await res.json()) as { token?: string; error?: string };
  if (!res.ok || !body.token) throw new Error(body.error ?? `token request failed (${res.status})`);
  return body.token;
}

async function connect(url: string): Promise<Signaling> {
  const sig = new Signaling(new WebSocket(url), onNotification, () => signaling === sig && leave('signaling closed'));
  signaling = sig;
  await sig.opened;
  return sig;
}

async function join(): Promise<void> {
  ui.join.disabled = true;
  started = performance.now();
  audioCtx = new AudioContext();
  void audioCtx.resume();
  setStatus('جارٍ الاتصال…');
  const token = await roomToken();
  let sig = await connect(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/webrtc/ws`);
  // In a cluster the room may be on another server: join there, with the same token.
  const joined = await sig.request('join', { token }).catch(async (err: Error & { redirect?: string }) => {
    if (!err.redirect) throw err;
    const old = sig;
    sig = await connect(err.redirect);
    old.close();
    return sig.request('join', { token });
  });
  stats.role = joined.role;
  device = new Device();
  await device.load({ routerRtpCapabilities: joined.routerRtpCapabilities as types.RtpCapabilities });
  const params = await recvParams(sig);
  recvTransport = device.createRecvTransport(params as types.TransportOptions);
  recvTransport.on('connect', ({ dtlsParameters }, ok, fail) => void sig.request('connectTransport', { transportId: params.id, dtlsParameters }).then(() => ok(), fail));
  if (joined.role === 'caller') await sendMicrophone();
  else ui.takeover.hidden = false;
  await sig.request('ready', { rtpCapabilities: device.rtpCapabilities });
  stats.joined = true;
  ui.leave.hidden = false;
  setStatus(joined.role === 'caller' ? 'متصل' : 'متصل (مشرف)');
}

function onNotification(n: Notification): void {
  if (n.notification === 'newConsumer') void consume(n.data).catch((e: Error) => stats.errors.push(e.message));
  else if (n.notification === 'call') onCall(n.data);
  else if (n.notification === 'agentLeft') {
    setStatus(`غادر الوكيل (${n.data.reason})`);
    ui.state.dataset.state = 'ended';
    ui.state.textContent = STATE_LABELS.ended!;
  } else if (n.notification === 'roomClosed') leave(n.data.reason);
}

async function takeover(): Promise<void> {
  if (!signaling) return;
  ui.takeover.disabled = true;
  await signaling.request('takeover', {});
  await sendMicrophone();
  transcript.note('supervisor', 'تولّى المشرف المكالمة');
  render();
}

function leave(reason: string): void {
  if (stats.ended) return;
  stats.ended = reason;
  signaling?.close();
  sendTransport?.close();
  recvTransport?.close();
  micStream?.getTracks().forEach((t) => t.stop());
  meterTimers.forEach((t) => clearInterval(t));
  ui.leave.hidden = true;
  ui.takeover.hidden = true;
  setStatus('انتهت المكالمة');
}

function download(): void {
  const blob = new Blob([transcript.toText(WHO)], { type: 'text/plain;charset=utf-8' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `hiwar-${new Date().toISOString().replace(/[:.]/g, '-')}.txt`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

ui.join.onclick = () =>
  void join().catch((e: Error) => {
    stats.errors.push(e.message);
    setStatus(`تعذّر الاتصال: ${e.message}`);
    ui.join.disabled = false;
  });
ui.leave.onclick = () => {
  void signaling?.request('leave', {}).catch(() => {});
  leave('left');
};
ui.takeover.onclick = () => void takeover().catch((e: Error) => stats.errors.push(e.message));
ui.download.onclick = download;
function showKnownPhrases(): void {
  void showPhrases(ui.phrases, ui.phraseList).then((p) => (stats.phrases = p));
}
showKnownPhrases();
