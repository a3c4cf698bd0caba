import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AuthenticationError,
  BadRequestError,
  InsufficientBalanceError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  ServiceError,
  errorForStatus,
  parseErrorBody,
  parseRetryAfter,
  redact,
  safeUrl,
} from '../../src/service/errors.ts';
import { backoffDelay } from '../../src/service/retry.ts';
import { classifyClose } from '../../src/service/ws/close-codes.ts';

test('each status maps to its error class and keeps status, code and message', () => {
  const table: [number, new (...a: never[]) => ServiceError][] = [
    [400, BadRequestError],
    [401, AuthenticationError],
    [402, InsufficientBalanceError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [413, PayloadTooLargeError],
    [429, RateLimitError],
    [500, ServerError],
    [502, ServerError],
  ];
  for (const [status, cls] of table) {
    const e = errorForStatus({ status, errorCode: status * 100 + 1, errorMessage: 'm' });
    assert.ok(e instanceof cls, `${status} → ${cls.name}`);
    assert.ok(e instanceof ServiceError);
    assert.equal(e.status, status);
    assert.equal(e.errorCode, status * 100 + 1);
    assert.equal(e.errorMessage, 'm');
  }
  assert.equal(errorForStatus({ status: 429, errorMessage: '' }).retryable, true);
  assert.equal(errorForStatus({ status: 503, errorMessage: '' }).retryable, true);
  assert.equal(errorForStatus({ status: 402, errorMessage: '' }).retryable, false);
});

test('error bodies: envelope, bare {message}, string code, plain text', () => {
  assert.deepEqual(parseErrorBody(401, '{"errorCode":40101,"errorMessage":"bad key"}'), { errorCode: 40101, errorMessage: 'bad key' });
  assert.deepEqual(parseErrorBody(404, '{"message":"Job not found"}'), { errorCode: undefined, errorMessage: 'Job not found' });
  assert.deepEqual(parseErrorBody(400, '{"errorCode":"400xx","errorMessage":"text is required"}'), { errorCode: '400xx', errorMessage: 'text is required' });
  assert.deepEqual(parseErrorBody(502, '<html>Bad gateway</html>'), { errorMessage: 'Bad gateway' });
  assert.deepEqual(parseErrorBody(500, ''), { errorMessage: 'HTTP 500' });
});

test('Retry-After in seconds and as a date', () => {
  assert.equal(parseRetryAfter('2'), 2000);
  assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 7_000), 3000);
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(parseRetryAfter('soon'), undefined);
});

test('redaction removes the key, raw or URL-encoded, and masks key query parameters', () => {
  assert.equal(redact('key k3y+/=abc was rejected', 'k3y+/=abc'), 'key [redacted] was rejected');
  assert.equal(redact('in url k3y%2B%2F%3Dabc', 'k3y+/=abc'), 'in url [redacted]');
  assert.equal(safeUrl('wss://h/listen?api_key=abc&model=asr'), 'wss://h/listen?api_key=redacted&model=asr');
});

test('backoff grows exponentially with jitter and honours Retry-After', () => {
  const p = { baseMs: 100 };
  assert.equal(backoffDelay(0, p, undefined, () => 0), 50);
  assert.equal(backoffDelay(0, p, undefined, () => 1), 100);
  assert.equal(backoffDelay(3, p, undefined, () => 1), 800);
  assert.equal(backoffDelay(10, { ...p, capMs: 1000 }, undefined, () => 1), 1000);
  assert.equal(backoffDelay(0, p, 3000, () => 0), 3000);
});

test('close codes become kinds; 1008 is told apart by the last error message', () => {
  assert.equal(classifyClose(1000, '').kind, 'normal');
  assert.equal(classifyClose(1008, '', 'authentication required').kind, 'unauthorized');
  assert.equal(classifyClose(1008, '', 'insufficient wallet balance').kind, 'insufficient_balance');
  assert.equal(classifyClose(1008, 'concurrent session limit reached').kind, 'rate_limited');
  const idle = classifyClose(1011, 'idle');
  assert.equal(idle.kind, 'server_error');
  assert.equal(idle.retryable, true);
  assert.equal(classifyClose(4002, 'bad sample_rate').kind, 'bad_parameter');
  assert.equal(classifyClose(4008, '').kind, 'too_far_ahead');
  assert.equal(classifyClose(1006, '').retryable, true);
  assert.equal(classifyClose(4002, '').retryable, false);
});
