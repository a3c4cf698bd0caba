/**
 * The tools the flow tests give their agents: the bank's get_balance with an `execute` of the
 * test's own (broken, slow), and tools without parameters (an order's status, a hand-off).
 */
import { z } from 'zod';
import { defineTool, type ToolContext } from '../../src/llm/types.ts';

const account = z.object({ account: z.enum(['current', 'savings']).default('current') });

/** `get_balance`, as the bank's intents call it, doing what `execute` does. */
export const balanceTool = <R>(description: string, execute: (args: z.infer<typeof account>) => R) =>
  defineTool({ name: 'get_balance', description, parameters: account, execute });

/** A tool without parameters. */
export const plainTool = <R>(name: string, description: string, execute: (args: Record<string, never>, ctx: ToolContext) => R) =>
  defineTool({ name, description, parameters: z.object({}), execute });

/** A get_balance that throws, as a core banking system that is down. */
export const failingBalance = () =>
  balanceTool('Balance (broken)', (): { balance: number } => {
    throw new Error('core banking is down');
  });
