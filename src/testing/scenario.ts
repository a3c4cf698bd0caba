import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { CallerStep } from './simulated-caller.ts';

/** The kinds of step, each told apart by its one key (the order of the union below). */
const STEP_KINDS = ['say', 'sound', 'dtmf', 'hangup'] as const;
const STEP_SHAPES = '{"say": "…", "bargeInAfterMs"?, "pauseMs"?, "continueAfterMs"?}, {"sound": "hum", "bargeInAfterMs": N, "ms"?}, {"dtmf": "12#", "pauseMs"?, "gapMs"?} or {"hangup": true, "pauseMs"?}';

const step = z.union([
  z.object({
    say: z.string().min(1), bargeInAfterMs: z.number().nonnegative().optional(), pauseMs: z.number().nonnegative().optional(),
    continueAfterMs: z.number().nonnegative().optional(),
  }),
  z.object({ sound: z.literal('hum'), bargeInAfterMs: z.number().nonnegative(), ms: z.number().positive().optional() }),
  z.object({ dtmf: z.string().regex(/^[0-9*#A-D]+$/), pauseMs: z.number().nonnegative().optional(), gapMs: z.number().positive().optional() }),
  z.object({ hangup: z.literal(true), pauseMs: z.number().nonnegative().optional() }),
]);
export const scenarioSchema = z.object({
  description: z.string().optional(),
  callerVoice: z.string().default('ar-uae-male-1'),
  sampleRate: z.union([z.literal(8000), z.literal(16000)], { error: 'must be 8000 or 16000' }).default(16000),
  steps: z.array(step).min(1),
});
/** A scripted call: the caller's voice, its audio rate and its moves, in order. */
export type Scenario = z.infer<typeof scenarioSchema>;
/** A scenario as written (in a JSON file or in code): `callerVoice` and `sampleRate` may be left out. */
export type ScenarioInput = z.input<typeof scenarioSchema>;

/** What a scenario is, for an error about one that is neither shape. */
const SCENARIO_SHAPES = 'a scenario is an array of steps, or {"steps": [...], "callerVoice"?, "sampleRate"?, "description"?}';

/**
 * Checks a scenario written in code or read from a file, filling in the defaults. A bad one
 * throws an error that starts with `where` and names the first thing wrong with it. An array is
 * its steps alone, in a file as in `runCall`'s script.
 */
export function parseScenario(data: unknown, where = 'scenario'): Scenario {
  if (Array.isArray(data)) data = { steps: data };
  else if (data === null || typeof data !== 'object') throw new Error(`${where}: ${SCENARIO_SHAPES}, got ${data === null ? 'null' : typeof data}`);
  const parsed = scenarioSchema.safeParse(data);
  if (!parsed.success) throw new Error(`${where}: ${describeIssue(parsed.error.issues[0]!, data)}`);
  return parsed.data;
}

/** A scenario file (JSON, as `hiwar demo --scenario` takes). */
export async function loadScenario(path: string): Promise<Scenario> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new Error(`scenario ${path}: ${(err as Error).message}`);
  }
  return parseScenario(data, `scenario ${path}`);
}

/**
 * One issue as a line a scenario's author can act on. A step that matches no kind is a union
 * failure whose own message is only "Invalid input": report the problem of the kind the step's
 * key names, or the shapes a step may have when it names none.
 */
function describeIssue(issue: z.core.$ZodIssue, data: unknown): string {
  const where = issue.path.join('.') || 'root';
  if (issue.code !== 'invalid_union' || issue.path[0] !== 'steps') return `${where}: ${issue.message}`;
  const raw = (data as { steps: unknown[] }).steps?.[issue.path[1] as number];
  const kind = raw && typeof raw === 'object' ? STEP_KINDS.findIndex((k) => k in raw) : -1;
  const branch = kind >= 0 ? issue.errors[kind]?.[0] : undefined;
  if (!branch) return `${where}: not a step; a step is ${STEP_SHAPES}`;
  return `${[...issue.path, ...branch.path].join('.')}: ${branch.message}`;
}

export const callerSteps = (s: Scenario): CallerStep[] => s.steps as CallerStep[];
