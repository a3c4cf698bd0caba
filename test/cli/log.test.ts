import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cliLogger, formatLogLine } from '../../src/cli/log.ts';

test('the CLI logger writes one readable line per record, keys still redacted', () => {
  const lines: string[] = [];
  const log = cliLogger('info', { HIWAR_LOG_LEVEL: '' }, (s) => lines.push(s));
  log.warn({ source: 'stt', kind: 'auth', apiKey: 'sk-secret-123456', close: { code: 1008 } }, 'speech recognition refused the API key');
  log.debug('not at info');
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^\d\d:\d\d:\d\d warn speech recognition refused the API key \(source=stt, kind=auth, apiKey=\[redacted\], close=\{"code":1008\}\)\n$/);
  assert.doesNotMatch(lines.join(''), /sk-secret/);
});

test('HIWAR_LOG_LEVEL wins over the command default; HIWAR_LOG_FORMAT is text or json, anything else a clear error', () => {
  const lines: string[] = [];
  cliLogger('info', { HIWAR_LOG_LEVEL: 'error' }, (s) => lines.push(s)).warn('quiet');
  assert.deepEqual(lines, []);
  assert.equal(cliLogger('info', { HIWAR_LOG_FORMAT: 'json' }).level, 'info');
  assert.throws(() => cliLogger('info', { HIWAR_LOG_FORMAT: 'pretty' }), { name: 'CliError', message: 'HIWAR_LOG_FORMAT must be "text" or "json", got "pretty"' });
});

test('a line that is not JSON passes through as it is', () => {
  assert.equal(formatLogLine('plain words'), 'plain words\n');
  assert.equal(formatLogLine('{"level":30,"msg":"no time"}\n'), 'info no time\n');
});
