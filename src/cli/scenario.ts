import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { CallerStep } from '../../transports/local/simulated-caller.ts';

const step = z.union([
  z.object({ say: z.string().min(1), bargeInAfterMs: z.number().nonnegative().optional(), pauseMs: z.number().nonnegative().optional() }),
  z.object({ sound: z.literal('hum'), bargeInAfterMs: z.number().nonnegative(), ms: z.number().positive().optional() }),
  z.object({ dtmf: z.string().regex(/^[0-9*#A-D]+$/), pauseMs: z.number().nonnegative().optional(), gapMs: z.number().positive().optional() }),
  z.object({ hangup: z.literal(true), pauseMs: z.number().nonnegative().optional() }),
]);
export const scenarioSchema = z.object({
  description: z.string().optional(),
  callerVoice: z.string().default('ar-uae-male-1'),
  sampleRate: z.union([z.literal(8000), z.literal(16000)]).default(16000),
  steps: z.array(step).min(1),
});
export type Scenario = z.infer<typeof scenarioSchema>;

export async function loadScenario(path: string): Promise<Scenario> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new Error(`scenario ${path}: ${(err as Error).message}`);
  }
  const parsed = scenarioSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`scenario ${path}: ${issue.path.join('.') || 'root'}: ${issue.message}`);
  }
  return parsed.data;
}

export const callerSteps = (s: Scenario): CallerStep[] => s.steps as CallerStep[];
