import assert from 'node:assert/strict';
import { test } from 'node:test';
import { transferFailure } from '../../src/session/transfer-failure.ts';
import { CALL_ENDED } from '../../src/transport/call-ended.ts';

const kindOf = (err: unknown) => {
  const { source, failure } = transferFailure('+966920000000', err);
  return `${source}:${failure.kind}`;
};

test("a failed transfer's kind follows what was thrown: the platform's HTTP answer, the network, or the hook's own code", () => {
  assert.equal(kindOf(Object.assign(new Error('refused'), { status: 422 })), 'transport:protocol');
  assert.equal(kindOf(Object.assign(new Error('refused'), { statusCode: 404 })), 'transport:protocol');
  assert.equal(kindOf(Object.assign(new Error('axios'), { response: { status: 401 } })), 'transport:auth');
  assert.equal(kindOf(Object.assign(new Error('busy'), { status: 429 })), 'transport:rate');
  assert.equal(kindOf(Object.assign(new Error('down'), { status: 503 })), 'transport:network');
  assert.equal(kindOf(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), 'transport:timeout');
  assert.equal(kindOf(new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }) })), 'transport:network');
  assert.equal(kindOf(Object.assign(new Error('the call has ended'), { code: CALL_ENDED })), 'transport:network');
  assert.equal(kindOf(new Error('no call id')), 'agent:hook');
  assert.equal(kindOf('a bare string'), 'agent:hook');
  assert.equal(kindOf(undefined), 'agent:hook');
  assert.equal(transferFailure('+966920000000', Object.assign(new Error('x'), { status: 422 })).failure.message, 'the platform refused the transfer to +966920000000 (HTTP 422)');
  assert.equal(transferFailure('+966920000000', Object.assign(new Error('x'), { status: 502 })).failure.message, 'the platform answered the transfer to +966920000000 with a server error (HTTP 502)');
});
