import { z } from 'zod';
import { callTools } from '../../src/llm/call-tools.ts';
import { defineTool } from '../../src/llm/types.ts';
import { defineIntent, type Intent } from '../../src/llm/scripted.ts';
import type { Agent } from '../../src/session/agent.ts';

/**
 * A bank's customer-service line in Gulf-friendly Modern Standard Arabic: balance, blocking a
 * card, branch hours, and a transfer to a human. The tools are stand-ins for a core-banking
 * API; replace `execute` with real calls.
 */
export const accounts: Record<string, { balance: number; currency: string }> = {
  current: { balance: 12500, currency: 'SAR' },
  savings: { balance: 48000, currency: 'SAR' },
};

/** Where "a human" is on this line (set it to your agents' queue; a SIP URI works too). */
export const HUMAN_DESK = process.env.HIWAR_HUMAN_DESK ?? '+966920000000';

const getBalance = defineTool({
  name: 'get_balance',
  description: 'Balance of one of the caller’s accounts',
  parameters: z.object({ account: z.enum(['current', 'savings']).default('current') }),
  execute: ({ account }) => ({ account, ...accounts[account]! }),
});
const blockCard = defineTool({
  name: 'block_card',
  description: 'Blocks the caller’s card at once (lost or stolen)',
  parameters: z.object({ reason: z.enum(['lost', 'stolen', 'other']).default('lost') }),
  execute: ({ reason }) => ({ blocked: true, last4: '4821', reason, reference: 'BLK-48213', replacementDays: 5 }),
});
const branchHours = defineTool({
  name: 'branch_hours',
  description: 'Opening hours of the branches',
  parameters: z.object({ city: z.string().optional() }),
  execute: () => ({ days: 'الأحد إلى الخميس', open: '9:00', close: '17:00' }),
});
const transferToHuman = defineTool({
  name: 'transfer_to_human',
  description: 'Hands the call to a human agent',
  parameters: z.object({ reason: z.string().default('caller request') }),
  // On a phone line the call is handed over once the "I am transferring you" reply is heard;
  // where the line cannot transfer, the call ends after that reply (endCallAfterTools).
  execute: async (_args, ctx) => {
    await ctx.call?.transfer(HUMAN_DESK).catch(() => {});
    return { queued: true, waitMinutes: 2 };
  },
});

export const tools = [
  getBalance,
  blockCard,
  branchHours,
  transferToHuman,
  // end_call (after the goodbye), send_dtmf (extensions); transfers go through transfer_to_human.
  ...callTools(),
];

// defineIntent: each reply gets its tool's result typed (no casts), each args is checked against the tool's parameters.
export const intents: Intent[] = [
  defineIntent(getBalance, {
    name: 'balance',
    // Keys work too: the caller presses 1 for the balance, 2 to block a card, 0 for a person.
    examples: ['رصيد حسابي', 'كم رصيدي', 'أريد معرفة الرصيد', 'كم في حسابي', '[DTMF: 1]'],
    args: (t) => ({ account: /توفير|التوفير/.test(t) ? 'savings' : 'current' }),
    reply: ({ balance, account }) => {
      const name = account === 'savings' ? 'حساب التوفير' : 'حسابك الجاري';
      return `رصيد ${name} ${balance.toLocaleString('en-US')} ريال.`;
    },
  }),
  defineIntent(blockCard, {
    name: 'block_card',
    examples: ['بطاقتي ضاعت', 'إيقاف بطاقتي', 'سرقت بطاقتي', 'أوقف البطاقة', 'فقدت بطاقتي', '[DTMF: 2]'],
    args: (t) => ({ reason: /سرق/.test(t) ? 'stolen' : 'lost' }),
    reply: ({ last4, replacementDays }) =>
      `تم إيقاف بطاقتك المنتهية بالأرقام ${last4.split('').join(' ')} فورًا، ولن تقبل أي عملية جديدة. ستصلك بطاقة بديلة خلال ${replacementDays} أيام عمل.`,
  }),
  defineIntent(branchHours, {
    name: 'branch_hours',
    examples: ['ساعات عمل الفرع', 'متى يفتح الفرع', 'أوقات الدوام', 'متى تفتحون'],
    reply: ({ days, open, close }) => `نعمل من ${days}، من ${open} حتى ${close}.`,
  }),
  defineIntent(transferToHuman, {
    name: 'human',
    examples: ['أريد التحدث مع موظف', 'حولني إلى موظف', 'موظف خدمة العملاء', '[DTMF: 0]'],
    reply: (r) => `سأحولك الآن إلى زميلي، والانتظار نحو ${r.waitMinutes} دقيقة.`,
  }),
  {
    name: 'goodbye',
    examples: ['شكرا', 'مع السلامة', 'لا شكرا'],
    tool: { name: 'end_call', args: () => ({ reason: 'goodbye' }) },
    reply: 'شكرًا لاتصالك ببنك الواحة، في أمان الله.',
  },
];

export const callCentre: Agent = {
  name: 'call-centre',
  instructions: [
    'أنت سارة، موظفة خدمة العملاء في بنك الواحة. تحدثي بالعربية الفصحى القريبة من لهجة الخليج، بجمل قصيرة واضحة تصلح للهاتف.',
    'لا تستخدمي التنسيق أو القوائم أو الرموز التعبيرية. استخدمي الأدوات للرصيد وإيقاف البطاقات وساعات العمل والتحويل إلى موظف.',
    'لا تذكري أرقام البطاقات كاملة. إذا طلب العميل موظفًا فحوليه فورًا.',
    'أزرار الهاتف تصلك هكذا: [DTMF: 1]. الزر 1 للرصيد، 2 لإيقاف البطاقة، 0 للموظف. بعد الوداع أنهي المكالمة بأداة end_call.',
  ].join('\n'),
  greeting: 'أهلًا بك في بنك الواحة، معك سارة. كيف أخدمك؟',
  // No model_id: the client's default (HIWAR_MODEL_IDS, HIWAR_TTS_MODEL) is used.
  voice: { voice_id: 'ar-hijazi-female-1' },
  tools,
  intents,
  didNotUnderstand: 'عذرًا، لم أفهم طلبك. يمكنني مساعدتك في الرصيد أو إيقاف البطاقة أو ساعات العمل.',
  outOfServiceLine: 'نعتذر، الخدمة غير متاحة حاليًا. يرجى الاتصال بنا لاحقًا.',
  endCallAfterTools: ['transfer_to_human'],
  turn: { endDelayMs: 0 },
  interruption: { minWords: 1, pauseOnSpeech: true, falseInterruptionTimeoutMs: 2000 },
  stt: { endpointing: 600, hotwords: ['الواحة'] },
};

export default callCentre;
