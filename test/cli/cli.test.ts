import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { mapLimit, SIDE_BY_SIDE } from '../helpers/parallel.ts';
import { hiwar } from '../helpers/processes.ts';

const ROOT = new URL('../..', import.meta.url).pathname;


// Commands that only check their arguments run side by side (two at a time): each is a fresh
// process, and its start-up (loading the TypeScript sources) is most of its time.
test('every subcommand prints its own usage with --help or -h', async () => {
  // `hiwar help serve` printed the general usage; it is `hiwar serve --help` now.
  const cases = [['demo', '--help'], ['sandbox', '-h'], ['console', '--help'], ['serve', 'help']] as const;
  const results = await mapLimit(cases, SIDE_BY_SIDE, ([cmd, flag]) => hiwar(flag === 'help' ? ['help', cmd] : [cmd, flag]));
  for (const [i, [cmd, flag]] of cases.entries()) {
    const r = results[i]!;
    assert.equal(r.code, 0, `${cmd} ${flag}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^Usage: hiwar ${cmd} `));
    assert.match(r.stdout, /-h, --help/);
    assert.equal(r.stderr, '');
  }
});

test('a wrong option or argument prints the message and the usage, exit 2, no stack trace', async () => {
  const runs = await mapLimit([['demo', '--bogus'], ['sandbox', 'extra'], ['sandbox', '--port', 'eighty']], SIDE_BY_SIDE, (args) => hiwar(args));
  const [r, s, p] = [runs[0]!, runs[1]!, runs[2]!];
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^hiwar demo: Unknown option '--bogus'/);
  assert.match(r.stderr, /Usage: hiwar demo/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  assert.equal(s.code, 2);
  assert.match(s.stderr, /Unexpected argument 'extra'[\s\S]*Usage: hiwar sandbox/);
  assert.equal(p.code, 2);
  assert.match(p.stderr, /--port must be a whole number from 0 to 65535, got "eighty"/);
});

test('demo --speed accepts only a range that works and says which', async () => {
  const speeds = ['0', '4', '8', 'fast'];
  const results = await mapLimit(speeds, SIDE_BY_SIDE, (speed) => hiwar(['demo', '--speed', speed]));
  for (const [i, speed] of speeds.entries()) {
    const r = results[i]!;
    assert.equal(r.code, 2, `--speed ${speed}`);
    assert.match(r.stderr, new RegExp(`--speed must be a number from 1 to 3, got "${speed}"`));
    assert.doesNotMatch(r.stdout, /sandbox/, 'nothing started');
  }
});

test('demo --out that cannot be written fails before the call starts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-cli-'));
  writeFileSync(join(dir, 'file'), 'not a directory');
  const r = await hiwar(['demo', '--out', join(dir, 'file', 'out')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^hiwar demo: --out .*file\/out: cannot write the results there \(a file is in the way\)\n$/);
  assert.doesNotMatch(r.stdout, /sandbox|hiwar demo:/, 'no sandbox, no call');
});

test("demo with an agent whose greeting uses {name}: refused before the call unless --var gives it; --var must be name=value", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-cli-'));
  const agent = join(dir, 'reminder.mjs');
  writeFileSync(agent, "export default { name: 'reminder', instructions: 'ذكّر العميل.', greeting: 'مرحبًا {name}، موعدك {when}.', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.' };\n");
  const [missing, malformed] = await mapLimit([['demo', '--agent', agent, '--var', 'name=خالد'], ['demo', '--agent', agent, '--var', 'name']], SIDE_BY_SIDE, (args) => hiwar(args));
  assert.equal(missing!.code, 1);
  assert.equal(missing!.stderr, 'hiwar demo: agent reminder uses {when} in its greeting or instructions: give it with --var when=…\n');
  assert.doesNotMatch(missing!.stdout, /sandbox/, 'no sandbox, no call');
  assert.equal(malformed!.code, 2);
  assert.match(malformed!.stderr, /^hiwar demo: --var takes name=value, got "name"\n[\s\S]*Usage: hiwar demo/);
});

test('a missing scenario or keys file is a one-line error', async () => {
  const runs = await mapLimit([['demo', '--scenario', 'no-such.json'], ['sandbox', '--keys', 'no-such.json', '--port', '0']], SIDE_BY_SIDE, (args) => hiwar(args));
  const [r, k] = [runs[0]!, runs[1]!];
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^hiwar demo: scenario no-such.json: ENOENT[^\n]*\n$/);
  assert.equal(k.code, 1);
  assert.equal(k.stderr, 'hiwar sandbox: --keys no-such.json: no such file\n');
});

/** Stub `rec`/`play` commands on PATH that behave like sox's. */
function stubSox(rec: string, play = 'cat > /dev/null'): string {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-sox-stub-'));
  for (const [name, body] of [['rec', rec], ['play', play]] as const) {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return `${dir}${delimiter}${process.env.PATH}`;
}

// What Debian's sox prints on a machine without a sound card (captured from the real one).
const NO_DEVICE = (prog: string) => `cat >&2 <<'X'
ALSA lib confmisc.c:855:(parse_card) cannot find card '0'
ALSA lib conf.c:5180:(_snd_config_evaluate) function snd_func_card_inum returned error: No such file or directory
ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default
${prog} FAIL sox: Sorry, there is no default audio device configured
X
exit 1`;

test('console without a sound device fails at once with what to do, before anything speaks', async () => {
  const r = await hiwar(['console'], { PATH: stubSox(NO_DEVICE('rec'), NO_DEVICE('play')) });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^hiwar console: cannot open the (microphone|loudspeaker) \(default device\): Sorry, there is no default audio device configured\./);
  assert.match(r.stderr, /--input/);
  assert.match(r.stderr, /apt-get install/);
  assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, 'one line');
  assert.doesNotMatch(r.stdout, /sandbox|greeting|Speak/, 'no service started, nothing said');
});

test('console: a device that disappears mid-call ends the call with the reason', async () => {
  // A small agent (no phrases to teach), so the sandbox starts fast.
  const agentDir = mkdtempSync(join(tmpdir(), 'hiwar-agent-'));
  writeFileSync(join(agentDir, 'package.json'), '{"type": "module"}');
  writeFileSync(
    join(agentDir, 'index.ts'),
    `import a from ${JSON.stringify(join(ROOT, 'agents/call-centre/index.ts'))};\nexport default { ...a, intents: [{ name: 'hi', examples: ['مرحبا'], reply: 'أهلا' }] };\n`,
  );
  const rec = `head -c 32000 /dev/zero; sleep 2; echo "rec FAIL sox: \\\`hw:1,0' read error: No such device" >&2; exit 2`;
  const r = await hiwar(['console', '--agent', agentDir, '--input', 'hw:1,0'], { PATH: stubSox(rec) });
  assert.match(r.stdout, /The offline recognizer understands only these phrases[\s\S]*• مرحبا[\s\S]*in anyone's voice[^\n]*صفر، واحد[^\n]*نعم، لا، موافق[\s\S]*--phrasebook FILE/);
  assert.match(r.stdout, /call ended: microphone \(hw:1,0\) stopped: `hw:1,0' read error: No such device/);
  assert.equal(r.code, 1);
});
