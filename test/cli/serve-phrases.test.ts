import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { pad, runSandbox, voiced } from '../helpers/sandbox.ts';
import { SHOP_AGENT, userProject } from '../helpers/user-project.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const FRAME = 320; // 20 ms at 16 kHz

/**
 * A caller on the generic PCM protocol (docs/telephony.md) whose speech reaches `hiwar serve`'s
 * embedded sandbox: it must be heard when it is one of the agent's intent examples or a line of
 * --phrasebook, which the sandbox never voiced itself.
 */
test('hiwar serve --agent: the embedded sandbox hears the agent\'s intent examples and the --phrasebook lines', async () => {
  const dir = userProject({ 'agent.ts': SHOP_AGENT, 'phrases.txt': 'أريد التحدث مع موظف\n\n' });
  // The caller's lines, voiced by another sandbox: audio the server's sandbox did not make.
  const voice = await runSandbox();
  const lines = await Promise.all(['أريد التحدث مع موظف', 'أين طلبي'].map(async (t) => pad(await voiced(voice.client, t, 16000, 'ar-najdi-male-2'), 16000, 0.2, 1.5)));
  await voice.close();

  const child = spawn(process.execPath, [BIN, 'serve', '--agent', 'agent.ts', '--phrasebook', 'phrases.txt', '--port', '0', '--open'], {
    cwd: dir,
    env: { ...process.env, HIWAR_API_KEY: '', HIWAR_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const look = () => {
        const m = /agent "shop" at (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      };
      child.stdout.on('data', look);
      child.once('exit', () => reject(new Error(`serve exited:\n${out}`)));
    });
    assert.match(out, /teaching its recognizer 2 phrases/);

    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/telephony/pcm?rate=16000&marks=0`);
    let agentFrames = 0;
    let lastAgentFrame = 0;
    ws.on('message', (_data, binary) => {
      if (!binary) return;
      agentFrames++;
      lastAgentFrame = performance.now();
    });
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    const send = async (pcm: Int16Array) => {
      // Real-time pace: the server runs on the real clock.
      for (let at = 0; at < pcm.length; at += FRAME) {
        const frame = new Int16Array(FRAME);
        frame.set(pcm.subarray(at, at + FRAME));
        ws.send(Buffer.from(frame.buffer));
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const silence = new Int16Array(FRAME * 5);
    /** Silence on the line until the agent has spoken and gone quiet for a second. */
    const untilAgentQuiet = async () => {
      while (!agentFrames || performance.now() - lastAgentFrame < 1000) await send(silence);
    };
    try {
      await untilAgentQuiet(); // the greeting
      for (const [i, text] of ['أريد التحدث مع موظف', 'أين طلبي'].entries()) {
        const before = agentFrames;
        await send(lines[i]!);
        // Silence until the agent answers: a reply is the proof the line became a turn. The
        // ceiling only keeps a broken build from hanging the suite.
        const give = performance.now() + 90_000;
        while (agentFrames === before) {
          if (performance.now() > give) assert.fail(`no reply after "${text}": the embedded sandbox did not hear it\n${out}`);
          await send(silence);
        }
        await untilAgentQuiet();
      }
    } finally {
      ws.close();
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});
