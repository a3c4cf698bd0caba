/**
 * `createLogger` writes pino's JSON lines by default, or with `format: 'text'` the readable
 * lines the `hiwar` commands print (docs/troubleshooting.md), keys redacted either way; a
 * destination given alone still gets JSON. `createAgentServer`'s own logger follows
 * HIWAR_LOG_FORMAT as the commands do (JSON unless it says `text`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, formatLogLine } from '../../src/index.ts';
import { runNode } from '../helpers/processes.ts';

test("createLogger: JSON lines by default, one readable line each with format 'text'; keys redacted in both", () => {
  const json: string[] = [];
  const text: string[] = [];
  createLogger('debug', { destination: { write: (l: string) => void json.push(l) } }).debug({ apiKey: 'sk-secret-123456', turn: 2 }, 'caller turn');
  createLogger('debug', { format: 'text', destination: { write: (l: string) => void text.push(l) } }).debug({ apiKey: 'sk-secret-123456', turn: 2 }, 'caller turn');
  const rec = JSON.parse(json[0]!) as Record<string, unknown>;
  assert.deepEqual([rec.level, rec.msg, rec.turn, rec.apiKey], [20, 'caller turn', 2, '[redacted]']);
  assert.match(text[0]!, /^\d\d:\d\d:\d\d debug caller turn \(apiKey=\[redacted\], turn=2\)\n$/);
  assert.equal(text[0], formatLogLine(json[0]!).replace(/^\d\d:\d\d:\d\d/, text[0]!.slice(0, 8)), 'the same line the commands print');
  // A destination given alone, as before: JSON to it.
  const plain: string[] = [];
  createLogger('info', { write: (l: string) => void plain.push(l) }).info('up');
  assert.equal((JSON.parse(plain[0]!) as { msg: string }).msg, 'up');
  assert.throws(() => createLogger('info', { format: 'pretty' as 'text' }), /createLogger: format must be "json" or "text", got "pretty"/);
});

test("createAgentServer's own logger: JSON lines, or the readable ones with HIWAR_LOG_FORMAT=text", async () => {
  // A server whose service cannot be reached warns as it starts (its out-of-service line is not rendered).
  const script = `
    const { createAgentServer } = await import('./src/server/index.ts');
    const { ServiceClient } = await import('./src/service/client.ts');
    const agent = { name: 'a', instructions: 'x', greeting: 'أهلًا', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.' };
    const app = await createAgentServer({ agent, client: new ServiceClient({ apiKey: 'sk-log-format-0001', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }), serviceProbe: false });
    await app.close();`;
  const run = (format: string) => runNode(['--import', 'tsx', '--input-type=module', '-e', script], { HIWAR_LOG_FORMAT: format, HIWAR_LOG_LEVEL: 'warn' }, 120_000);
  const [json, text] = await Promise.all([run(''), run('text')]);
  assert.equal(json.code, 0, json.stderr);
  const line = json.stderr.split('\n').find((l) => l.includes('out-of-service line not rendered'));
  assert.ok(line, json.stderr);
  assert.equal((JSON.parse(line) as { level: number }).level, 40, 'a pino JSON line');
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stderr, /^\d\d:\d\d:\d\d warn out-of-service line not rendered at start-up; the first call renders it \(err=/m);
  assert.doesNotMatch(json.stderr + text.stderr, /sk-log-format-0001/);
});
