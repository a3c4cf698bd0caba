import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import WebSocket from 'ws';
import { Deadline } from '../helpers/deadline.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const NO_SDK = new URL('../helpers/no-otel-sdk.cjs', import.meta.url).pathname;

/** A stand-in OpenTelemetry Collector: keeps every request's path, content type and body. */
async function collector() {
  const got: { path: string; type: string; body: string }[] = [];
  let arrived: () => void = () => {};
  const server = createServer((req: IncomingMessage, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', type: String(req.headers['content-type']), body: Buffer.concat(parts).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      arrived();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    got,
    next: () => new Promise<void>((r) => (arrived = r)),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test('hiwar serve --otel: a Twilio call’s trace, child of its webhook’s traceparent, reaches an OTLP collector over HTTP', async () => {
  const otlp = await collector();
  const env: NodeJS.ProcessEnv = { ...process.env, HIWAR_LOG_LEVEL: 'silent', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url };
  for (const k of ['HIWAR_API_KEY', 'TWILIO_AUTH_TOKEN', 'HIWAR_MEDIA_TOKEN', 'HIWAR_WEBRTC_SECRET', 'REDIS_URL', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) delete env[k];
  const child = spawn(process.execPath, [BIN, 'serve', '--otel', '--open', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    // A ceiling, not a timing: the embedded sandbox voices its phrases first (minutes at load 20).
    const give = new Deadline(240_000);
    while (!/traces: OpenTelemetry[\s\S]*access/.test(out)) {
      if (give.expired || child.exitCode !== null) throw new Error(`serve did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(out, new RegExp(`traces: OpenTelemetry over OTLP HTTP to ${otlp.url}/v1/traces`));
    // The server's own line (the embedded sandbox's address is printed before it).
    const base = `http://127.0.0.1:${/at http:\/\/[\d.]+:(\d+)/.exec(out.slice(out.indexOf('hiwar serve:')))![1]}`;
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const hook = await fetch(`${base}/telephony/twilio`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', traceparent: `00-${traceId}-00f067aa0ba902b7-01`, 'x-request-id': 'req-77' },
      body: 'CallSid=CA77&From=%2B971500000001&To=%2B97145550000',
    });
    assert.equal(hook.status, 200);
    const stream = /<Stream url="([^"]+)"/.exec(await hook.text())![1]!.replace(/&amp;/g, '&');
    const ws = new WebSocket(stream);
    await once(ws, 'open');
    const sid = 'MZ77';
    ws.send(JSON.stringify({ event: 'start', streamSid: sid, start: { streamSid: sid, callSid: 'CA77', customParameters: {}, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } }));
    // The greeting starts: the call is up. Then the caller hangs up.
    await new Promise<void>((resolve) => ws.on('message', (d) => String(d).includes('"media"') && resolve()));
    ws.send(JSON.stringify({ event: 'stop', streamSid: sid }));
    ws.close();
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, out);
    const posts = otlp.got.filter((g) => g.path === '/v1/traces');
    assert.ok(posts.length >= 1, `spans posted to /v1/traces (got ${otlp.got.map((g) => g.path)})`);
    const body = posts.map((p) => p.body).join('\n');
    assert.match(posts[0]!.type, /json|protobuf/);
    for (const name of ['hiwar.webhook', 'hiwar.call', 'hiwar.reply', 'hiwar.tts']) assert.ok(body.includes(name), `${name} exported`);
    // JSON as the exporter sends it: the spans decode, and the call sits under the webhook in the caller's trace.
    const spans = posts.flatMap((p) => (JSON.parse(p.body) as { resourceSpans: { scopeSpans: { spans: { name: string; traceId: string; spanId: string; parentSpanId?: string; attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[] }).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    const hex = (v: string) => (/^[0-9a-f]+$/.test(v) ? v : Buffer.from(v, 'base64').toString('hex'));
    const webhook = spans.find((s) => s.name === 'hiwar.webhook')!;
    const callSpan = spans.find((s) => s.name === 'hiwar.call')!;
    assert.equal(hex(webhook.traceId), traceId);
    assert.equal(hex(webhook.parentSpanId!), '00f067aa0ba902b7');
    assert.equal(hex(callSpan.traceId), traceId);
    assert.equal(hex(callSpan.parentSpanId!), hex(webhook.spanId), 'the call is the webhook’s child');
    const attr = (s: typeof callSpan, k: string) => s.attributes.find((a) => a.key === k)?.value.stringValue;
    assert.equal(attr(callSpan, 'hiwar.call.id'), 'CA77');
    assert.equal(attr(callSpan, 'hiwar.request_id'), 'req-77');
    assert.equal(attr(callSpan, 'hiwar.provider'), 'twilio');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await otlp.close();
  }
});

test('hiwar serve --otel without the SDK: one line naming the npm install', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, HIWAR_LOG_LEVEL: 'silent' };
  delete env.HIWAR_API_KEY;
  const child = spawn(process.execPath, ['--require', NO_SDK, BIN, 'serve', '--otel', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  child.stdout.on('data', () => {});
  const [code] = await once(child, 'exit');
  assert.equal(code, 1, err);
  const line = /^hiwar serve: Tracing \(--otel\) needs @opentelemetry\/sdk-trace: npm install @opentelemetry\/sdk-trace@\^2\.12\.1; see (\S+\/docs\/observability\.md)\n$/.exec(err);
  assert.ok(line, err);
  assert.ok(existsSync(line[1]!), `the page the line names is on this machine: ${line[1]}`);
});
