#!/usr/bin/env node
/**
 * A reference gateway for hiwar's generic PCM protocol (docs/telephony.md, "Generic PCM
 * protocol"): one WebSocket per call, binary frames of 16-bit little-endian mono PCM both ways,
 * JSON text frames for control. Plain Node 20 and the `ws` package; copy it into your bridge
 * (SIP, RTP, a softphone) and replace the two ends marked "YOUR SIDE".
 *
 * Here the caller is a list of WAV files (16-bit mono at --rate) and the loudspeaker is a WAV
 * file: the gateway speaks each file once the agent has finished talking, and writes what the
 * agent said to --out. It does what a real gateway must do:
 *   - it sends caller audio all the time, 20 ms per frame at real-time pace (silence between
 *     lines, as a phone line does), from the moment the socket opens;
 *   - it plays agent audio at real-time pace from a queue and echoes each `mark` only when the
 *     audio sent before it has been played (marks sit in the same queue as the audio);
 *   - on `clear` it drops every queued frame and mark at once (the caller barged in);
 *   - on `hangup` it stops; it sends `{"type":"hangup"}` when its own caller is done.
 *
 *   node examples/pcm-gateway/gateway.mjs --url ws://127.0.0.1:8080/telephony/pcm \
 *     --out agent.wav caller-line-1.wav caller-line-2.wav
 *
 * Prints one JSON line when the call ends: seconds of agent audio played, marks echoed, clears,
 * how many of the caller's lines got an answer, and the agent's hang-up reason if it hung up.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';

const USAGE = `Usage: node gateway.mjs --url ws://HOST/telephony/pcm [--rate 16000] [--token TOKEN]
                        [--out agent.wav] [--max-s 120] [--answer-s 15] [--pause-ms 2000]
                        [--greeting-s 10] CALLER.wav [CALLER.wav …]

  --url URL     the server's PCM route (query parameters of your own become call parameters)
  --rate N      8000, 16000 (default), 24000 or 48000: the caller files' rate and the agent's
  --token T     the server's media token, its --media-token (default HIWAR_MEDIA_TOKEN; needed
                on localhost too, unless the server was started with --open and no token)
  --out FILE    where the agent's audio goes, as WAV (default agent.wav)
  --max-s N     give up after N seconds of call (default 120)
  --answer-s N  after the last line, how long to wait for the agent to begin answering (default 15)
  --pause-ms N  the agent's silence that ends its turn: the caller speaks next (default 2000)
  --greeting-s N  with no greeting from the agent this long, the caller speaks first (default 10)`;

const FRAME_MS = 20;



function fail(message) {
  process.stderr.write(`pcm-gateway: ${message}\n`);
  process.exit(1);
}

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      rate: { type: 'string', default: '16000' },
      token: { type: 'string' },
      out: { type: 'string', default: 'agent.wav' },
      'max-s': { type: 'string', default: '120' },
      'answer-s': { type: 'string', default: '15' },
      'pause-ms': { type: 'string', default: '2000' },
      'greeting-s': { type: 'string', default: '10' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (err) {
  fail(`${err.message}\n\n${USAGE}`);
}
if (args.values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const rate = Number(args.values.rate);
if (![8000, 16000, 24000, 48000].includes(rate)) fail(`--rate must be 8000, 16000, 24000 or 48000, got ${args.values.rate}`);
if (!args.values.url) fail(`--url is required\n\n${USAGE}`);
if (!args.positionals.length) fail(`give at least one caller WAV file\n\n${USAGE}`);
for (const name of ['max-s', 'answer-s', 'pause-ms', 'greeting-s']) {
  if (!(Number(args.values[name]) > 0)) fail(`--${name} must be a positive number, got ${args.values[name]}`);
}
const maxMs = Number(args.values['max-s']) * 1000;
const answerMs = Number(args.values['answer-s']) * 1000;
/** The agent has finished a turn once nothing was left to play for this long (its sentences come with gaps). */
const pauseMs = Number(args.values['pause-ms']);
/** With nothing from the agent this long after the call starts, the caller speaks first. */
const greetingMs = Number(args.values['greeting-s']) * 1000;
const samplesPerFrame = (rate / 1000) * FRAME_MS;

/** YOUR SIDE (caller): here, 16-bit mono WAV files at --rate. */
function readWav(path) {
  const b = readFileSync(path);
  if (b.toString('ascii', 0, 4) !== 'RIFF' || b.toString('ascii', 8, 12) !== 'WAVE') fail(`${path}: not a WAV file`);
  let fmt;
  for (let at = 12; at + 8 <= b.length; ) {
    const id = b.toString('ascii', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    if (id === 'fmt ') fmt = { format: b.readUInt16LE(at + 8), channels: b.readUInt16LE(at + 10), rate: b.readUInt32LE(at + 12), bits: b.readUInt16LE(at + 22) };
    if (id === 'data') {
      if (!fmt || fmt.format !== 1 || fmt.channels !== 1 || fmt.bits !== 16 || fmt.rate !== rate) {
        fail(`${path}: need 16-bit mono PCM at ${rate} Hz${fmt ? `, got ${fmt.bits}-bit, ${fmt.channels} channel(s), ${fmt.rate} Hz` : ''}`);
      }
      const data = b.subarray(at + 8, Math.min(b.length, at + 8 + size));
      return new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + (data.length & ~1)));
    }
    at += 8 + size + (size & 1);
  }
  return fail(`${path}: no audio data`);
}

/** YOUR SIDE (loudspeaker): here, a WAV file written when the call ends. */
function writeWav(path, chunks) {
  const samples = chunks.reduce((n, c) => n + c.length, 0);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + samples * 2, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(samples * 2, 40);
  writeFileSync(path, Buffer.concat([h, ...chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength))]));
}

const lines = args.positionals.map(readWav);

const url = new URL(args.values.url);
url.searchParams.set('rate', String(rate));
const token = args.values.token ?? process.env.HIWAR_MEDIA_TOKEN;
if (token) url.searchParams.set('token', token);
const ws = new WebSocket(url);

/** Agent audio and marks in the order they arrived: a mark is echoed when playback reaches it. */
const playQueue = [];
const played = [];
const stats = { agentSeconds: 0, marksEchoed: 0, clears: 0, linesSaid: 0, linesAnswered: 0, hangup: null };
let line; // the caller line being said: { pcm, at }
let agentSpokeSinceLine = false;
let quietMs = 0;
let lastLineEndedAt = 0;
let elapsedMs = 0;
let ticker;

ws.on('message', (data, isBinary) => {
  if (isBinary) {
    const bytes = Buffer.from(data);
    // Copied: the socket's buffer is reused, and PCM16 needs an even offset.
    playQueue.push({ pcm: new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.length & ~1))) });
    return;
  }
  let m;
  try {
    m = JSON.parse(String(data));
  } catch {
    return;
  }
  if (m.type === 'mark') playQueue.push({ mark: m.name });
  else if (m.type === 'clear') {
    // Barge-in: what was not played yet is dropped, and so are its marks (never echo them).
    playQueue.length = 0;
    stats.clears++;
  } else if (m.type === 'hangup') stats.hangup = m.reason ?? 'hangup';
});

/** Plays one frame's worth of the queue; echoes the marks it passes. */
function playFrame() {
  let need = samplesPerFrame;
  let playedAny = false;
  while (playQueue.length) {
    const head = playQueue[0];
    if (head.mark !== undefined) {
      ws.send(JSON.stringify({ type: 'mark', name: head.mark }));
      stats.marksEchoed++;
      playQueue.shift();
      continue;
    }
    if (need === 0) break;
    const take = Math.min(need, head.pcm.length);
    played.push(head.pcm.subarray(0, take));
    playedAny = true;
    need -= take;
    if (take === head.pcm.length) playQueue.shift();
    else head.pcm = head.pcm.subarray(take);
  }
  if (playedAny) stats.agentSeconds += (samplesPerFrame - need) / rate;
  return playedAny;
}

/** One caller frame: the current line, or silence. */
function callerFrame() {
  // (Int16Array goes out in the host's byte order: little-endian on every platform Node runs on.)
  if (!line) return new Int16Array(samplesPerFrame);
  const frame = new Int16Array(samplesPerFrame);
  frame.set(line.pcm.subarray(line.at, line.at + samplesPerFrame));
  line.at += samplesPerFrame;
  if (line.at >= line.pcm.length) {
    line = undefined;
    lastLineEndedAt = elapsedMs;
    agentSpokeSinceLine = false;
  }
  return frame;
}

function tick() {
  elapsedMs += FRAME_MS;
  if (playFrame()) {
    quietMs = 0;
    agentSpokeSinceLine = true;
  } else quietMs += FRAME_MS;
  ws.send(callerFrame());
  if (line) return;
  // The agent has finished its turn: it spoke since the caller's last line and has been quiet
  // for a while (an agent with no greeting: the caller speaks first, after a moment).
  const agentDone = (agentSpokeSinceLine && quietMs >= pauseMs) || (stats.linesSaid === 0 && elapsedMs >= greetingMs && quietMs >= elapsedMs);
  // Agent audio after the caller's line is its answer.
  if (agentSpokeSinceLine && stats.linesSaid > 0) stats.linesAnswered = stats.linesSaid;
  if (stats.linesSaid === lines.length) {
    // The last line: hang up once the answer is over, or when none began within --answer-s.
    if (agentDone || (!agentSpokeSinceLine && elapsedMs - lastLineEndedAt > answerMs) || elapsedMs > maxMs) hangUp();
  } else if (agentDone) {
    line = { pcm: lines[stats.linesSaid], at: 0 };
    stats.linesSaid++;
  } else if (elapsedMs > maxMs) hangUp();
}

function hangUp() {
  clearTimeout(ticker);
  if (ws.readyState === WebSocket.OPEN) {
    ws.send(JSON.stringify({ type: 'hangup' }));
    ws.close(1000);
  }
}

ws.on('open', () => {
  // Real-time pace on the wall clock, without drift: each tick is scheduled from the start.
  const start = performance.now();
  let n = 0;
  const next = () => {
    if (ws.readyState !== WebSocket.OPEN) return;
    tick();
    n++;
    ticker = setTimeout(next, Math.max(0, start + n * FRAME_MS - performance.now()));
  };
  next();
});
/** Why a server refuses the media connection, by its answer's status (docs/security.md). */
const REFUSALS = {
  401: "the media token is missing or wrong: give the server's own (its --media-token or HIWAR_MEDIA_TOKEN) with --token or HIWAR_MEDIA_TOKEN, on localhost too",
  403: 'the token was already used for a call',
  503: 'the server is full (--max-calls) or draining',
};
ws.on('unexpected-response', (_req, res) => fail(`the server refused the call: HTTP ${res.statusCode}${REFUSALS[res.statusCode] ? ` (${REFUSALS[res.statusCode]})` : ''}`));
ws.on('error', (err) => fail(`${url.origin}: ${err.message}`));
ws.on('close', () => {
  clearTimeout(ticker);
  writeWav(args.values.out, played);
  process.stdout.write(`${JSON.stringify({ ...stats, agentSeconds: +stats.agentSeconds.toFixed(2) })}\n`);
  process.exit(stats.linesSaid === lines.length ? 0 : 1);
});
