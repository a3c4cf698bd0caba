import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { processRunTime } from '../../src/service/run-time.ts';
import { Deadline } from '../helpers/deadline.ts';
import { pad, runSandbox, voiced } from '../helpers/sandbox.ts';
import { SHOP_AGENT, userProject } from '../helpers/user-project.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const FRAME = 320; // 20 ms at 16 kHz

/**
 * `hiwar serve --open` in `dir` with `args` and no service key (its embedded sandbox), called on the
 * generic PCM protocol (docs/telephony.md) by a caller who says `texts` in turn, each voiced by
 * another sandbox (audio the server's sandbox did not make) and each waited for until the agent
 * answers: a reply is the proof the line became a turn. `serving`: what its ready line says it
 * serves, before the address. `after`: asked of the server before it stops. Returns what the server printed.
 */
async function callServe(dir: string, args: string[], serving: string, texts: string[], logLevel = 'warn', after?: (url: string) => Promise<void>): Promise<string> {
  const voice = await runSandbox();
  const lines = await Promise.all(texts.map(async (t) => pad(await voiced(voice.client, t, 16000, 'ar-najdi-male-2'), 16000, 0.2, 1.5)));
  await voice.close();

  const child = spawn(process.execPath, [BIN, 'serve', ...args, '--port', '0', '--open'], {
    cwd: dir,
    env: { ...process.env, HIWAR_API_KEY: '', HIWAR_LOG_LEVEL: logLevel },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const look = () => {
        const m = new RegExp(`${serving} at (http:\\/\\/\\S+)`).exec(out);
        if (m) resolve(m[1]!);
      };
      child.stdout.on('data', look);
      child.once('exit', () => reject(new Error(`serve exited:\n${out}`)));
    });

    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/telephony/pcm?rate=16000&marks=0`);
    let agentFrames = 0;
    let lastAgentFrame = 0;
    ws.on('message', (_data, binary) => {
      if (!binary) return;
      agentFrames++;
      lastAgentFrame = processRunTime.now();
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
    /** Silence on the line until the agent has spoken and gone quiet for a second of run time (a stall of this process is no quiet). */
    const untilAgentQuiet = async () => {
      while (!agentFrames || processRunTime.now() - lastAgentFrame < 1000) await send(silence);
    };
    processRunTime.hold(); // its ticker: run time is counted only while someone looks every 10 ms
    try {
      await untilAgentQuiet(); // the greeting
      for (const [i, text] of texts.entries()) {
        const before = agentFrames;
        await send(lines[i]!);
        // Silence until the agent answers. The ceiling only keeps a broken build from hanging the suite.
        const give = new Deadline(90_000);
        while (agentFrames === before) {
          if (give.expired) assert.fail(`no reply after "${text}": the embedded sandbox did not hear it\n${out}`);
          await send(silence);
        }
        await untilAgentQuiet();
      }
    } finally {
      processRunTime.release();
      ws.close();
    }
    await after?.(url);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  return out;
}

/** The caller's lines must be heard when they are the agent's intent examples or lines of --phrasebook, which the sandbox never voiced itself. */
test('hiwar serve --agent: the embedded sandbox hears the agent\'s intent examples and the --phrasebook lines', async () => {
  const dir = userProject({ 'agent.ts': SHOP_AGENT, 'phrases.txt': 'أريد التحدث مع موظف\n\n' });
  const out = await callServe(dir, ['--agent', 'agent.ts', '--phrasebook', 'phrases.txt'], 'agent "shop"', ['أريد التحدث مع موظف', 'أين طلبي']);
  assert.match(out, /teaching its recognizer 2 phrases/);
});

/**
 * Two agents: the first hands the call to the second, whose phrase only it knows (its intents are
 * in no file the command reads). The tool returns the handoff made by the project's own hiwar,
 * another copy of the module than the command's here (test runs compile a tree of their own).
 */
const FLOW_AGENTS = `import { z } from 'zod';
import { defineTool, handoff, type Agent } from 'hiwar';

const common = { instructions: 'متجر ورد', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.' };

const orders: Agent = {
  ...common,
  name: 'orders',
  tools: [defineTool({ name: 'order_status', description: 'Where an order is', parameters: z.object({}), execute: () => ({ status: 'shipped' }) })],
  intents: [{ name: 'status', examples: ['أين طلبي'], tool: { name: 'order_status' }, reply: 'طلبك في الطريق.' }],
};

const front: Agent = {
  ...common,
  name: 'front',
  greeting: 'أهلًا بك في متجر الورد.',
  tools: [defineTool({ name: 'to_orders', description: 'Hands the caller to the orders desk', parameters: z.object({}), execute: () => handoff(orders, { carry: 'none' }) })],
  handoffs: [orders],
  intents: [{ name: 'orders', examples: ['أريد قسم الطلبات'], tool: { name: 'to_orders' }, reply: 'سأحولك إلى قسم الطلبات.' }],
};
export default front;
`;

test("hiwar serve --agent: after a handoff the next agent hears its own phrases (the agents in `handoffs` are taught too)", async () => {
  const dir = userProject({ 'agent.ts': FLOW_AGENTS });
  const out = await callServe(dir, ['--agent', 'agent.ts'], 'agent "front"', ['أريد قسم الطلبات', 'أين طلبي'], 'info');
  assert.match(out, /teaching its recognizer 2 phrases/);
  // The second line's turn is the orders desk's (a turn is logged with the agent that answered it).
  assert.match(out, /turn.*agent=orders|agent=orders.*turn/, out);
});

test('hiwar serve --config with agentFor: the agent chosen for a call is taught to the embedded sandbox before that call', async () => {
  const config = `import shop from './agent.ts';\nexport default { agentFor: () => shop };\n`;
  const dir = userProject({ 'agent.ts': SHOP_AGENT, 'server.config.ts': config });
  const listed: { before?: string[]; after?: string[] } = {};
  const phrases = async (url: string) => ((await (await fetch(`${url}/webrtc/phrases`)).json()) as { phrases: string[] }).phrases;
  const out = await callServe(dir, ['--config', 'server.config.ts'], 'agents chosen per call by server.config.ts', ['أين طلبي'], 'warn', async (url) => {
    listed.after = await phrases(url);
  });
  assert.match(out, /agent "shop" chosen for a call: voicing 1 phrase /, out);
  // The call page lists what the sandbox learnt for the call too: it listed the start's phrases only.
  assert.ok(listed.after?.includes('أين طلبي'), `GET /webrtc/phrases: ${JSON.stringify(listed.after)}\n${out}`);
});
