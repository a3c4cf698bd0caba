import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;

test('the core never imports transports/ (only the CLI may)', () => {
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.startsWith('cli'));
  const offenders = files.filter((f) => /from '(\.\.\/)+transports\//.test(readFileSync(join(root, 'src', f), 'utf8')));
  assert.deepEqual(offenders, []);
});

test('the package entry loads no onnxruntime and carries neither local transports nor the sandbox', () => {
  const script = `
    const entry = await import('./src/index.ts');
    const cache = (await import('node:module')).default._cache ?? {};
    console.log(JSON.stringify({
      onnx: Object.keys(cache).some((k) => k.includes('onnxruntime')),
      names: Object.keys(entry),
    }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  const { onnx, names } = JSON.parse(out.trim().split('\n').at(-1)!);
  assert.equal(onnx, false, 'onnxruntime is loaded only when a call turns local VAD on');
  for (const name of ['SimulatedCaller', 'WavFileTransport', 'SoxTransport', 'startSandbox']) assert.ok(!names.includes(name), name);
  for (const name of ['AgentSession', 'PacedOutput', 'CallerAudio', 'ResamplingOutput', 'ServiceClient']) assert.ok(names.includes(name), name);
});
