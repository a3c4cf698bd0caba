// A failure's message says what an operator acts on: for a request the service refused as
// malformed, the service's own reason (an unknown voice), not "answered something it should not have".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APIConnectionError, InternalServerError, RateLimitError } from 'openai';
import * as ServiceErrors from '../../src/service/errors.ts';
import { AuthenticationError, BadRequestError, KEY_REFUSED_HINT, ServiceError, TransportError } from '../../src/service/errors.ts';
import { classifyClose } from '../../src/service/ws/close-codes.ts';
import { classifyFailure, closeFailure, fallbackFailure, toolFailure } from '../../src/session/failure.ts';

test("a refused request names the service's reason; other failures keep their plain sentence", () => {
  const voice = new BadRequestError({ status: 400, errorCode: 40001, errorMessage: 'voice_id nope-voice does not exist', endpoint: 'POST /text-to-speech/faseeh-v1-preview' });
  assert.deepEqual(classifyFailure(voice, 'tts'), { kind: 'protocol', message: "speech synthesis refused the request (HTTP 400: voice_id nope-voice does not exist): list the voices on offer with the client's listVoices() (GET /voices), and give one of their voice_id" });
  const long = classifyFailure(new ServiceError({ status: 422, errorMessage: 'x'.repeat(500) }), 'stt');
  assert.equal(long.message, `speech recognition refused the request (HTTP 422: ${'x'.repeat(160)}…)`);
  // The key's refusal says nothing of the service's text (it may echo what was sent).
  // It says where the key is set instead.
  assert.deepEqual(classifyFailure(new AuthenticationError({ status: 401, errorMessage: 'bad key sk-secret' }), 'tts'), { kind: 'auth', message: `speech synthesis refused the API key or its access (HTTP 401): ${KEY_REFUSED_HINT}` });
  assert.deepEqual(classifyFailure(new ServiceError({ status: 503, errorMessage: 'down' }), 'tts'), { kind: 'network', message: 'speech synthesis answered with a server error (HTTP 503)' });
  // The model's server answered 500: it did not lose its connection.
  assert.deepEqual(classifyFailure(new InternalServerError(500, { message: 'internal boom' }, 'internal boom', new Headers()), 'llm'), { kind: 'network', message: 'the language model answered with a server error (HTTP 500)' });
  assert.deepEqual(classifyFailure(new RateLimitError(429, undefined, 'slow down', new Headers()), 'llm'), { kind: 'rate', message: 'the language model is over its rate or concurrency limit (HTTP 429)' });
  // The service's own words (its envelope, with an error code) say which limit or what is down; a gateway's page says nothing.
  assert.equal(
    classifyFailure(new ServiceErrors.RateLimitError({ status: 429, errorCode: 42901, errorMessage: 'too many concurrent sessions for this key' }), 'stt').message,
    'speech recognition is over its rate or concurrency limit (HTTP 429: too many concurrent sessions for this key)',
  );
  assert.equal(classifyFailure(new ServiceErrors.PermissionDeniedError({ status: 403, errorCode: 40301, errorMessage: 'this key cannot call /listen' }), 'stt').message, 'speech recognition refused the API key or its access (HTTP 403: this key cannot call /listen)');
  assert.equal(classifyFailure(new ServiceError({ status: 503, errorCode: 50301, errorMessage: 'speech recognition is overloaded' }), 'stt').message, 'speech recognition answered with a server error (HTTP 503: speech recognition is overloaded)');
  assert.equal(classifyFailure(new ServiceError({ status: 502, errorMessage: '<html><body>Bad gateway</body></html>' }), 'stt').message, 'speech recognition answered with a server error (HTTP 502)');
  assert.equal(classifyFailure(new ServiceErrors.InsufficientBalanceError({ status: 402, errorCode: 40201, errorMessage: 'insufficient balance' }), 'tts').message, 'speech synthesis stopped: the wallet is empty (HTTP 402)');
  // No connection made at all: not "lost".
  assert.deepEqual(classifyFailure(new APIConnectionError({ message: 'ECONNREFUSED' }), 'llm'), { kind: 'network', message: 'the language model could not be reached' });
  assert.deepEqual(classifyFailure(new TransportError('/listen: connection failed: connect ECONNREFUSED 127.0.0.1:8787', 'network'), 'stt'), { kind: 'network', message: 'speech recognition could not be reached' });
  assert.deepEqual(classifyFailure(new TransportError('/listen: connection timed out', 'timeout'), 'stt'), { kind: 'timeout', message: 'speech recognition did not answer in time' });
});

test("the closes a client causes say what it did, not that the service answered something it should not have", () => {
  assert.deepEqual(closeFailure(classifyClose(4008, 'too_far_ahead'), 'stt'), {
    kind: 'protocol',
    message: "speech recognition closed the stream: the caller's audio ran too far ahead of real time (close 4008); a live source sends it as it is spoken, a file or a device without a clock faster",
  });
  assert.equal(closeFailure(classifyClose(4002, 'sample_rate must be 8000 or 16000'), 'stt', true).message, "speech recognition refused the stream's parameters (close 4002, reconnects gave up: sample_rate must be 8000 or 16000)");
  assert.equal(closeFailure(classifyClose(1006, ''), 'stt').message, 'speech recognition lost its connection (close 1006)');
});

test('a key /listen refused says so, with the service reason and where the key is set, never the key', () => {
  const refused = closeFailure(classifyClose(1008, 'authentication required', 'authentication required'), 'stt');
  assert.equal(refused.kind, 'auth');
  assert.equal(refused.message, `speech recognition refused the API key or its access (close 1008: authentication required): ${KEY_REFUSED_HINT}`);
  assert.match(KEY_REFUSED_HINT, /HIWAR_API_KEY.*apiKey.*HIWAR_REGION/);
  assert.match(closeFailure(classifyClose(1008, 'access denied: this key cannot call /listen'), 'stt').message, /\(close 1008: access denied: this key cannot call \/listen\): the service refused the API key: set the right one in HIWAR_API_KEY/);
});

test("a tool that threw is kind 'tool' and names the tool (it was reported as a hook)", () => {
  assert.deepEqual(toolFailure('get_balance'), { kind: 'tool', tool: 'get_balance', message: "the agent's code threw an error (tool get_balance)" });
});

test('the synthesis socket given up for HTTP is a typed failure, its kind from what the socket said, else its cause', () => {
  const closed = fallbackFailure({ cause: 'socket-closed', reason: 'socket closed (1006)', close: classifyClose(1006, '') });
  assert.deepEqual(closed, { kind: 'network', message: 'speech synthesis switched to HTTP: socket closed (1006)' });
  const refused = fallbackFailure({ cause: 'socket-error', reason: 'authentication failed on the TTS socket', error: new AuthenticationError({ status: 401, errorMessage: 'Invalid API key' }) });
  assert.equal(refused.kind, 'auth');
  assert.equal(fallbackFailure({ cause: 'no-audio', reason: 'no audio from the socket 3000 ms after the text was sent' }).kind, 'timeout');
  assert.equal(fallbackFailure({ cause: 'stalled', reason: 'audio stopped mid-sentence after 0.8 s' }).kind, 'timeout');
});
