// A consumer's own compiler against the installed package's declarations
// (test/package/blank-project.ts: packed and installed once for all of test/package/'s files).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCommand } from '../helpers/processes.ts';
import { blankProject, ENTRIES, ROOT, type BlankProject } from './blank-project.ts';

let blank: BlankProject;
before(async () => {
  // The optional peers whose types the cluster/analytics and WebRTC entries name: a user of those
  // entries installs them.
  blank = await blankProject('peers');
});
after(() => blank?.remove());

test("a consumer's tsc, 5.9 and 7 (nodenext, strict, skipLibCheck false), type-checks every public entry", async () => {
  const { project, env } = blank;
  const lines = ENTRIES.map((e, i) => `import * as m${i} from '${e}';`);
  lines.push(`export const all = [${ENTRIES.map((_, i) => `m${i}`).join(', ')}];`);
  lines.push(`import { AgentSession, type Agent } from 'hiwar';`, `const agent: Agent = { name: 'x', instructions: 'y', voice: { voice_id: 'v' }, outOfServiceLine: 'z' };`, `export const s: typeof AgentSession = AgentSession; export { agent };`);
  // defineIntent's reply gets the tool's result typed through the emitted declarations (a phantom
  // symbol-keyed type on DefinedTool), not only in the sources: a field the tool lacks is an error.
  lines.push(
    `import { defineIntent, defineTool } from 'hiwar'; import { z } from 'zod';`,
    `const balanceTool = defineTool({ name: 'b', description: 'd', parameters: z.object({ account: z.enum(['a', 'b']) }), execute: async () => ({ balance: 12500 }) });`,
    `export const typed = defineIntent(balanceTool, { name: 'b', examples: ['x'], args: () => ({ account: 'a' }), reply: (r) => r.balance.toFixed(0) });`,
    `// @ts-expect-error the tool returns no overdraft`,
    `export const wrong = defineIntent(balanceTool, { name: 'b', examples: ['x'], reply: (r) => String(r.overdraft) });`,
  );
  // A transfer hook as docs/telephony.md writes it: `opts` destructured (it was optional, an error).
  lines.push(
    `import type { ProviderHooks } from 'hiwar/server';`,
    `export const hooks: ProviderHooks = { async transfer(call, target, { summary }) { void [call.callId, target, summary?.length]; } };`,
  );
  // This release's error body and date task lines, as docs/service.md and docs/arabic-parsing.md use
  // them: `body` may be absent, the limits are read-only, a part of the day is one the parser names.
  lines.push(
    `import { ServiceError, ERROR_BODY_LIMITS, dateTask, parseHour, parseDate, type PartOfDay } from 'hiwar';`,
    `export const bodyOf = (e: unknown): string | undefined => (e instanceof ServiceError ? e.body?.slice(0, ERROR_BODY_LIMITS.summaryChars) : undefined);`,
    `// @ts-expect-error body is undefined for an error made without one`,
    `export const bodyLength = (e: ServiceError): number => e.body.length;`,
    `// @ts-expect-error the limits are read-only`,
    `ERROR_BODY_LIMITS.keptChars = 1;`,
    `export const dated = dateTask({ requireTime: true, dayStartsAt: 0, lines: { askHour: 'في أي ساعة {value}؟', partsOfDay: { afternoon: 'العصر' } } });`,
    `// @ts-expect-error no such part of the day`,
    `export const lunch = dateTask({ lines: { partsOfDay: { lunch: 'الغداء' } } });`,
    `const on = parseDate('بكرة العصر'); export const part: PartOfDay | undefined = on?.partOfDay; export const hour = on && parseHour('الساعة أربعة', on, { timeZone: 'Asia/Riyadh' })?.time;`,
  );
  // The phone task's countries (docs/arabic-parsing.md#validators): the Arab League's, typed, and
  // no other; normalizePhone's and digitsTask's country are the one type.
  lines.push(
    `import { normalizePhone, PHONE_COUNTRIES, type PhoneCountry } from 'hiwar/text';`,
    `import { digitsTask } from 'hiwar';`,
    `export const kw: PhoneCountry = 'KW'; export const kwPhone: string | undefined = normalizePhone('5001 2345', kw);`,
    `export const countries: readonly PhoneCountry[] = PHONE_COUNTRIES; export const kwTask = digitsTask({ kind: 'phone', country: 'KW' });`,
    `// @ts-expect-error hiwar knows the Arab League's countries only`,
    `export const us: PhoneCountry = 'US';`,
  );
  // Session 36's public APIs as the docs give them (readiness's model probe, the lines the session
  // says on its own, backchannels and the barge-in policy's yes/no, the hour said outside its part
  // of the day, a drain's cancel, jambonz's marks): each name from the entry the docs name, typed.
  lines.push(
    `import { InterruptionPolicy, BACKCHANNELS, OpenAiLlm, CAMPAIGN_DEFAULTS, type BargeInPolicy, type InterruptionDecision, type FixedLineKind, type SessionEvent, type SessionOptions, type LiveCall, type AttemptOutcome } from 'hiwar';`,
    `import { MODEL_PROBE_DEFAULTS, SERVICE_PROBE_DEFAULTS, type ReachabilityState, type ServiceProbeOptions, type ServerEvent, type CreateAgentServerOptions } from 'hiwar/server';`,
    `import { JAMBONZ_DEFAULTS, jambonzProvider, telephonyRoutes, type JambonzOptions, type OutboundPlatform, type OutboundCall } from 'hiwar/transports/telephony';`,
    `export const probes: Pick<CreateAgentServerOptions, 'serviceProbe' | 'modelProbe'> = { serviceProbe: { notReadyOn: ['unreachable', 'refused'] }, modelProbe: { ...MODEL_PROBE_DEFAULTS, notReadyOn: ['unreachable'] } };`,
    `export const states: readonly ReachabilityState[] = [...SERVICE_PROBE_DEFAULTS.notReadyOn, ...MODEL_PROBE_DEFAULTS.notReadyOn];`,
    `// @ts-expect-error no such state`,
    `export const down: ServiceProbeOptions = { notReadyOn: ['down'] };`,
    `export const probed: Promise<void> = new OpenAiLlm({ apiKey: 'k', model: 'm' }).probe({ timeoutMs: 100 });`,
    `export const lineOf = (e: SessionEvent): FixedLineKind | string | undefined => e.type === 'reply_started' || e.type === 'agent_turn' ? e.line : e.type === 'out_of_service' ? e.reason : e.type === 'interruption' && e.kind === 'backchannel' ? e.text : undefined;`,
    `export const serverLine = (e: ServerEvent): string | undefined => (e.type === 'out_of_service' ? e.call.callId + e.reason : undefined);`,
    `export const liveLine = (c: LiveCall): string => (c.fixedLine ?? '') + (c.lastAgentLine ?? '');`,
    `export const barge: BargeInPolicy = new InterruptionPolicy({ backchannels: [...BACKCHANNELS, 'يب'] });`,
    `export const decided: InterruptionDecision | undefined = barge.onEvent({ type: 'SpeechStarted', channel: 0, ts: 0 }, 0, true, { yesNo: true });`,
    `export const stagesOf: Pick<SessionOptions, 'logKeys' | 'stages'> = { logKeys: true, stages: { interruption: () => new InterruptionPolicy({ backchannels: false }) } };`,
    `export const outside: string | undefined = parseDate('تسعة ونص العصر')?.hourOutsidePart;`,
    `export const cancelling: OutboundPlatform['cancel'] = async (c) => Boolean(c.platformCallId);`,
    `export const requested = (c: OutboundCall): 'draining' | undefined => c.cancelRequested;`,
    `export const drained: AttemptOutcome = 'canceled-draining'; export const retried = CAMPAIGN_DEFAULTS.retryOn.includes(drained);`,
    `export const marks: JambonzOptions = { marks: !JAMBONZ_DEFAULTS.marks }; export const jambonzRoutes = [telephonyRoutes({ jambonz: marks }), jambonzProvider({ marks: false })];`,
  );
  // Bytes hiwar gives back go into a Blob or File as they are (docs/service.md): the synthesized
  // WAV uploaded for transcription, a test call's recording. Typed `Uint8Array` (ArrayBufferLike),
  // TypeScript 5.7+ refused them as a BlobPart.
  lines.push(
    `import { ServiceClient, encodeWav } from 'hiwar'; import type { TestCall } from 'hiwar/testing';`,
    `export const roundTrip = async (c: ServiceClient) => c.transcribe({ file: new File([await c.synthesizeWav('faseeh-v1-preview', { voice_id: 'v', text: 'مرحبا' })], 'hello.wav') });`,
    `export const recorded = (call: TestCall): Blob => new Blob([call.recording()], { type: 'audio/wav' }); export const made = new File([encodeWav(new Int16Array(8), 16000)], 'x.wav');`,
  );
  writeFileSync(join(project, 'consumer.ts'), lines.join('\n') + '\n');
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: ['node'] }, files: ['consumer.ts'] }),
  );
  // The consumer's TypeScript 5.9 (installed in the blank project), and 7 (what `npm install -D
  // typescript` gives now: the repository's own, run on the same project).
  const compilers = { '5.9': join(project, 'node_modules/typescript/bin/tsc'), '7': join(ROOT, 'node_modules/typescript-7/bin/tsc') };
  for (const [version, bin] of Object.entries(compilers)) {
    const tsc = await runCommand(process.execPath, [bin, '-p', project, '--listFiles'], { cwd: project, env, timeoutMs: 300_000 });
    assert.equal(tsc.code, 0, `TypeScript ${version} reported:\n${tsc.stdout.replace(/^\/.*\n/gm, '')}${tsc.stderr}`);
    // wavefile's declarations use `declare module` for a namespace, an error in TypeScript 7:
    // hiwar's declarations must not lead a consumer's tsc to them.
    const reached = tsc.stdout.split('\n').filter((f) => /node_modules\/wavefile\//.test(f));
    assert.deepEqual(reached, [], `hiwar's declarations reach wavefile's (TypeScript ${version})`);
  }
});
