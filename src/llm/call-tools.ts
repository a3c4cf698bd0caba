import { defineTool, type Tool, type ToolContext } from './types.ts';
import { loadZod } from './zod.ts';

/** Options of the call tools. */
export interface CallToolOptions {
  /**
   * Where `transfer_call` may hand a call, by a name the model chooses from (a number in E.164
   * or a SIP URI as the value). The model never dials a number it made up. Without targets,
   * `transfer_call` is left out.
   */
  transferTargets?: Record<string, string>;
  /** Offer `send_dtmf` (keys to an IVR or an extension on the far end). @default true */
  dtmf?: boolean;
}

const callOf = (ctx: ToolContext) => {
  if (!ctx.call) throw new Error('this tool works only during a call');
  return ctx.call;
};

/**
 * Tools that act on the call itself, for any agent on a phone line: end it, transfer it, press
 * keys. Hang-up and transfer happen once the reply being spoken has been heard, so the model's
 * "I am transferring you now" is said first. Keys the caller presses reach the model as
 * `[DTMF: 123]` turns (see the agent's `dtmf` options).
 */
export function callTools(opts: CallToolOptions = {}): Tool[] {
  const { z } = loadZod();
  const tools: Tool[] = [
    defineTool({
      name: 'end_call',
      description: 'Ends the call after your current reply (say goodbye in the reply).',
      parameters: z.object({ reason: z.string().max(200).optional() }),
      execute: async ({ reason }, ctx) => {
        await callOf(ctx).hangup(reason ?? 'agent ended the call');
        return { ending: true };
      },
    }),
  ];
  const targets = opts.transferTargets ?? {};
  const names = Object.keys(targets);
  if (names.length) {
    tools.push(
      defineTool({
        name: 'transfer_call',
        description: `Transfers the caller after your current reply (tell them first). Destinations: ${names.join(', ')}.`,
        parameters: z.object({ to: z.enum(names as [string, ...string[]]) }),
        execute: async ({ to }, ctx) => {
          await callOf(ctx).transfer(targets[to]!);
          return { transferring: true, to };
        },
      }),
    );
  }
  if (opts.dtmf ?? true) {
    tools.push(
      defineTool({
        name: 'send_dtmf',
        description: 'Presses phone keys toward the far end (an extension, an IVR menu). Digits 0-9, * and #.',
        parameters: z.object({ digits: z.string().regex(/^[0-9*#A-D]{1,32}$/, 'digits 0-9, *, #, A-D only') }),
        execute: async ({ digits }, ctx) => {
          await callOf(ctx).sendDtmf(digits);
          return { sent: digits };
        },
      }),
    );
  }
  return tools;
}
