/**
 * A Telnyx Call Control call stays up on Telnyx when hiwar closes its media stream, unless a
 * `hooks.telnyx.hangup` ends it by the API (docs/telephony.md#telnyx). Without the hook, the
 * agent's hang-up is a `warning` server event each time and a log line the first time, naming the
 * hook and the docs' section; a TeXML call (ended by its action URL) and a call with the hook are not.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ServerWarning } from '../../src/server/types.ts';
import type { CallInfo } from '../../src/transport/types.ts';
import { createLogger } from '../../src/session/logger.ts';
import { FarEnd } from './far-end.ts';
import { telnyxProtocol } from './protocols.ts';
import { startServe, waitFor, type Served } from './serve.ts';

/** An agent that hangs up after its greeting: the call ends on hiwar's side. */
const hangsUp = { hooks: { onCallStart: (call: { hangup(reason?: string): Promise<void> }) => void call.hangup('done') } };

const warnings: ServerWarning[] = [];
const lines: Record<string, unknown>[] = [];
let s: Served;
before(async () => {
  s = await startServe({
    speed: 4,
    agent: hangsUp,
    onWarning: (w) => warnings.push(w),
    logger: createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) }),
  });
});
after(() => s.close());

const callControl = async (server: Served, id: string) => {
  const body = JSON.stringify({ data: { event_type: 'call.initiated', record_type: 'event', payload: { call_control_id: id, direction: 'incoming', from: '+971500000001', to: '+97140000000', state: 'parked' } } });
  const res = await fetch(`${server.url}/telephony/telnyx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return ((await res.json()) as { stream_url: string }).stream_url;
};
const texml = async (server: Served, id: string) => {
  const xml = await (await fetch(`${server.url}/telephony/telnyx`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `CallSid=${id}` })).text();
  return /<Stream url="([^"]+)"/.exec(xml)![1]!;
};

/** Runs one call on `url` until the agent has hung up and the server has finished it. */
async function agentHangsUp(server: Served, url: string, id: string): Promise<void> {
  const far = new FarEnd(url, telnyxProtocol(id), server.clock);
  try {
    await far.start();
    await waitFor(() => !!server.calls.find((c) => c.transport.call.callId === id)?.report, `call ${id} ended`);
    assert.equal(server.calls.find((c) => c.transport.call.callId === id)!.transport.agentAction?.action, 'hangup');
  } finally {
    far.hangup();
  }
}

const warnedLines = () => lines.filter((l) => l.warning === 'hangup_hook_missing');

test('a Call Control call the agent hangs up, with no hangup hook: a warning event naming the hook and the docs, the log line once', async () => {
  await agentHangsUp(s, await callControl(s, 'v3:cc-a'), 'v3:cc-a');
  await waitFor(() => warnings.length === 1, 'the warning event');
  const w = warnings[0]!;
  assert.equal(w.code, 'hangup_hook_missing');
  assert.equal(w.call.callId, 'v3:cc-a');
  assert.match(w.message, /telnyx keeps the call up: give hooks\.telnyx\.hangup \(providerHooks\.telnyx\.hangup of createAgentServer\)/);
  assert.match(w.message, /docs\/telephony\.md#telnyx\)$/);
  assert.equal(warnedLines().length, 1);
  assert.equal(warnedLines()[0]!.msg, w.message);
  assert.equal(warnedLines()[0]!.level, 40);

  await agentHangsUp(s, await callControl(s, 'v3:cc-b'), 'v3:cc-b');
  await waitFor(() => warnings.length === 2, 'the second warning event');
  assert.equal(warnings[1]!.call.callId, 'v3:cc-b');
  assert.equal(warnedLines().length, 1, 'the log says it once');
});

test('a TeXML call the agent hangs up ends through its action URL: no warning', async () => {
  const before = warnings.length;
  await agentHangsUp(s, await texml(s, 'v3:texml-a'), 'v3:texml-a');
  assert.equal(warnings.length, before);
});

test('with hooks.telnyx.hangup, the hook ends the Call Control call and nothing is warned of', async () => {
  const hungUp: CallInfo[] = [];
  const own: ServerWarning[] = [];
  const withHook = await startServe({ speed: 4, agent: hangsUp, sandbox: s.sandbox, onWarning: (w) => own.push(w), hooks: { telnyx: { hangup: async (call) => void hungUp.push(call) } } });
  try {
    await agentHangsUp(withHook, await callControl(withHook, 'v3:cc-hook'), 'v3:cc-hook');
    assert.deepEqual(hungUp.map((c) => c.callId), ['v3:cc-hook']);
    assert.deepEqual(own, []);
  } finally {
    await withHook.close();
  }
});

test('a Call Control call whose session fails is ended by the hangup hook too, or warned of without one', async () => {
  const fails = () => {
    throw new Error('the session factory broke');
  };
  const hungUp: string[] = [];
  const withHook = await startServe({ sandbox: s.sandbox, beforeSession: fails, hooks: { telnyx: { hangup: async (call, reason) => void hungUp.push(`${call.callId} ${reason}`) } } });
  const own: ServerWarning[] = [];
  const withoutHook = await startServe({ sandbox: s.sandbox, beforeSession: fails, onWarning: (w) => own.push(w) });
  try {
    for (const [server, id] of [[withHook, 'v3:cc-fail-hook'], [withoutHook, 'v3:cc-fail']] as const) {
      const far = new FarEnd(await callControl(server, id), telnyxProtocol(id), server.clock);
      try {
        await far.start();
        await waitFor(() => (server === withHook ? hungUp.length > 0 : own.length > 0), `the end of ${id} on Telnyx`);
      } finally {
        far.hangup();
      }
    }
    assert.deepEqual(hungUp, ['v3:cc-fail-hook failed']);
    assert.equal(own[0]!.code, 'hangup_hook_missing');
    assert.equal(own[0]!.call.callId, 'v3:cc-fail');
  } finally {
    await withHook.close();
    await withoutHook.close();
  }
});
