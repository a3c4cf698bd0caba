import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callTools } from '../../src/llm/call-tools.ts';
import { runTools } from '../../src/llm/tools.ts';
import type { CallControl } from '../../src/transport/types.ts';

function fakeCall() {
  const did: string[] = [];
  const call: CallControl = {
    info: { callId: 'c1', provider: 'test', parameters: {} },
    hangup: async (reason) => void did.push(`hangup:${reason}`),
    transfer: async (target) => void did.push(`transfer:${target}`),
    sendDtmf: async (digits) => void did.push(`dtmf:${digits}`),
  };
  return { call, did };
}

const run = (tools: ReturnType<typeof callTools>, name: string, args: unknown, call?: CallControl) =>
  runTools([{ id: '1', name, arguments: JSON.stringify(args) }], tools, { signal: new AbortController().signal, call }).then((o) => o[0]!);

test('call tools act on the call; the model transfers only to named destinations and presses only real keys', async () => {
  const tools = callTools({ transferTargets: { cards: '+966920000001', sales: 'sip:sales@pbx.example' } });
  assert.deepEqual(tools.map((t) => t.name), ['end_call', 'transfer_call', 'send_dtmf']);
  const { call, did } = fakeCall();
  assert.equal((await run(tools, 'transfer_call', { to: 'sales' }, call)).error, undefined);
  assert.match((await run(tools, 'transfer_call', { to: '+15551234' }, call)).error ?? '', /invalid arguments/);
  assert.equal((await run(tools, 'send_dtmf', { digits: '12#' }, call)).error, undefined);
  assert.match((await run(tools, 'send_dtmf', { digits: '12; rm' }, call)).error ?? '', /invalid arguments/);
  assert.equal((await run(tools, 'end_call', {}, call)).error, undefined);
  assert.deepEqual(did, ['transfer:sip:sales@pbx.example', 'dtmf:12#', 'hangup:agent ended the call']);
  assert.match((await run(tools, 'end_call', {})).error ?? '', /only during a call/);
  assert.deepEqual(callTools({ dtmf: false }).map((t) => t.name), ['end_call'], 'no targets, no transfer tool');
});
