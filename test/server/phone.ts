/**
 * A Twilio call against a mounted agent server, as Twilio makes one: the webhook (form-encoded,
 * with the numbers), then the media WebSocket named in the TwiML answer, with Twilio's
 * `connected` and `start` messages. Counts the agent's media messages; hangs up with `stop`.
 */
import WebSocket from 'ws';
import { Deadline } from '../helpers/deadline.ts';

/** Waits for a condition, polling; fails with `what` after `ms` (a failsafe: the machine is shared). */
export async function waitFor(cond: () => boolean, what: string, ms = 90_000): Promise<void> {
  const deadline = new Deadline(ms);
  while (!cond()) {
    if (deadline.expired) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface PhoneCall {
  /** Media messages (agent audio) received so far. */
  readonly media: () => number;
  /** Resolves with the close code once the server closed the stream (or the call hung up). */
  readonly closed: Promise<number>;
  hangUp(): void;
}

/** POSTs Twilio's call webhook to `base`; the status and the stream URL of its TwiML. */
export async function twilioWebhook(base: string, fields: Record<string, string>): Promise<{ status: number; streamUrl?: string; body: string }> {
  const res = await fetch(`${base}/telephony/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const body = await res.text();
  return { status: res.status, body, streamUrl: /<Stream url="([^"]+)"/.exec(body)?.[1]?.replace(/&amp;/g, '&') };
}

/** The webhook, then the media stream it names: one phone call from `from` to `to`. */
export async function twilioPhoneCall(base: string, callSid: string, to: string, from = '+966500000000'): Promise<PhoneCall> {
  const hook = await twilioWebhook(base, { CallSid: callSid, From: from, To: to, Direction: 'inbound' });
  if (hook.status !== 200 || !hook.streamUrl) throw new Error(`webhook answered ${hook.status}: ${hook.body}`);
  const ws = new WebSocket(hook.streamUrl);
  let media = 0;
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  ws.on('error', () => {});
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as { event?: string };
    if (m.event === 'media') media++;
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`media upgrade refused: ${res.statusCode}`)));
  });
  const streamSid = `MZ${callSid}`;
  ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  ws.send(
    JSON.stringify({
      event: 'start',
      sequenceNumber: '1',
      streamSid,
      start: { accountSid: 'ACtest', streamSid, callSid, tracks: ['inbound'], customParameters: { From: from, To: to }, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
    }),
  );
  return {
    media: () => media,
    closed,
    hangUp() {
      if (ws.readyState !== ws.OPEN) return;
      ws.send(JSON.stringify({ event: 'stop', sequenceNumber: '2', streamSid, stop: { accountSid: 'ACtest', callSid } }));
      ws.close();
    },
  };
}
