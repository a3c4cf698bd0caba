import { z } from 'zod';
import type { Intent } from '../../src/llm/scripted.ts';
import { defineTool } from '../../src/llm/types.ts';
import type { Agent } from '../../src/session/agent.ts';
import { handoff } from '../../src/session/handoff.ts';
import { digitsTask } from '../../src/tasks/index.ts';
import type { CollectTask } from '../../src/tasks/types.ts';
import callCentre, { HUMAN_DESK, tools as bankTools } from './index.ts';

/**
 * The call centre as a flow of agents, plain data and code: a greeter identifies the caller by
 * account number (a task: keys or spoken digits, read back), then hands the call to the cards or
 * the billing desk; either can pass the caller to a human with a summary of the case.
 */

/** The account numbers the stand-in bank knows. */
export const knownAccounts = new Set(['4821', '1234']);

/**
 * The greeter's account-number task: four digits said (in any dialect, or as numerals) or keyed
 * and ended with #, checked against the bank's accounts, read back and confirmed (yes, or 1 on
 * the keypad); three tries.
 */
export function accountNumberTask(maxAttempts = 3): CollectTask<string> {
  return digitsTask({
    kind: 'custom',
    length: 4,
    validate: (digits) => knownAccounts.has(digits),
    maxAttempts,
    prompt: 'من فضلك أدخل رقم حسابك المكوّن من أربعة أرقام ثم اضغط المربع.',
  });
}

/** Passes the caller to a person with a summary of the case (carried as a SIP header where the line can). */
const toHuman = defineTool({
  name: 'transfer_to_human',
  description: 'Hands the call to a human agent, with a summary of the case',
  parameters: z.object({ reason: z.string().default('caller request') }),
  execute: async (_args, ctx) => {
    const summary = (await ctx.session?.summarize()) ?? '';
    await ctx.call?.transfer(HUMAN_DESK, { summary }).catch(() => {});
    return { queued: true, waitMinutes: 2 };
  },
});

const humanIntent: Intent = {
  name: 'human',
  examples: ['أريد التحدث مع موظف', 'حولني إلى موظف', 'موظف خدمة العملاء'],
  tool: { name: 'transfer_to_human' },
  reply: 'سأحولك الآن إلى زميل، وقد أخبرته بطلبك.',
};

const bank = (name: string) => bankTools.find((t) => t.name === name)!;

/** The cards desk: blocks cards; told the whole conversation (`carry: 'full'`). */
export const cards: Agent = {
  ...callCentre,
  name: 'cards',
  instructions: 'أنت موظف قسم البطاقات في بنك الواحة. أوقف البطاقات المفقودة أو المسروقة بأداة block_card، وحوّل إلى موظف عند الطلب.',
  greeting: undefined,
  voice: { voice_id: 'ar-uae-male-1' },
  tools: [bank('block_card'), toHuman],
  intents: [callCentre.intents!.find((i) => i.name === 'block_card')!, humanIntent],
  endCallAfterTools: ['transfer_to_human'],
  // Answer the request the caller already made to the greeter.
  hooks: { onEnter: (session) => void session.generateReply() },
};

/** The billing desk: balances; told a summary of the conversation. */
export const billing: Agent = {
  ...callCentre,
  name: 'billing',
  instructions: 'أنت موظفة قسم الحسابات في بنك الواحة. أجيبي عن الرصيد بأداة get_balance، وحوّلي إلى موظف عند الطلب.',
  greeting: undefined,
  tools: [bank('get_balance'), toHuman],
  intents: [callCentre.intents!.find((i) => i.name === 'balance')!, humanIntent],
  endCallAfterTools: ['transfer_to_human'],
  hooks: { onEnter: (session) => void session.say('معك قسم الحسابات، تفضل بسؤالك.') },
};

/** Tools of the greeter: each returns the handoff to its desk. */
const routes = [
  defineTool({
    name: 'to_cards',
    description: 'Hands the caller to the cards desk (lost, stolen or blocked cards)',
    parameters: z.object({}),
    execute: () => handoff(cards, { carry: 'full' }),
  }),
  defineTool({
    name: 'to_billing',
    description: 'Hands the caller to the billing desk (balances, statements)',
    parameters: z.object({}),
    execute: () => handoff(billing, { carry: 'summary' }),
  }),
];

/** The greeter: identifies the caller (the account task), then routes to a desk. */
export const greeter: Agent = {
  ...callCentre,
  name: 'greeter',
  instructions: 'أنت موظفة الاستقبال في بنك الواحة. بعد التحقق من الحساب اسألي عن الطلب وحوّلي العميل إلى قسم البطاقات أو قسم الحسابات بالأداة المناسبة.',
  greeting: 'أهلًا بك في بنك الواحة.',
  tools: routes,
  // The desks its tools hand to: checked before a call, and their phrases taught offline.
  handoffs: [cards, billing],
  intents: [
    { name: 'cards', examples: ['بطاقتي ضاعت', 'سرقت بطاقتي', 'أوقف البطاقة'], tool: { name: 'to_cards' }, reply: 'سأحولك إلى قسم البطاقات.' },
    { name: 'billing', examples: ['كم رصيدي', 'أريد معرفة الرصيد', 'رصيد حسابي'], tool: { name: 'to_billing' }, reply: 'سأحولك إلى قسم الحسابات.' },
  ],
  endCallAfterTools: [],
  hooks: {
    // Identify the caller first; after three failed tries, a person takes over.
    onEnter: async (session, call) => {
      const account = await session.runTask(accountNumberTask());
      if (account.ok) await session.say('شكرًا، تم التحقق من حسابك. كيف أخدمك اليوم؟');
      else await call.transfer(HUMAN_DESK, { summary: `تعذر التحقق من الحساب (${account.reason})` }).catch(() => {});
    },
  },
};

export default greeter;
