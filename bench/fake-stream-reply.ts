/**
 * The fake model's streamed reply (`streamReply: 1` in bench/fake-service.ts): token by token with
 * realistic gaps, sentence ends mid-stream, digits, and a tool call after the text.
 */
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FakeDelays, HoldKind } from './fake-service.ts';

/**
 * The streamed reply (`streamReply: 1`), as a model's tokens: a short first sentence, a second
 * with a number and an amount mid-stream, then the tool call `check_balance`.
 */
export const STREAM_REPLY = ['حسن', 'ًا', '،', ' سأ', 'تحقق', ' من', ' رصيد', 'ك', ' الآن', '.', ' رقم', ' حساب', 'ك', ' ', '4521', ' و', 'آخر', ' دفعة', ' ', '250', ' ريال', 'ًا', '.'];
/** The tool the streamed reply calls, and the model's words after its result. */
export const STREAM_TOOL = 'check_balance';
export const STREAM_AFTER_TOOL = [' رصيد', 'ك', ' ', '2450', ' ريال', 'ًا', '.'];

const epochNow = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
type Record_ = (call: string, kind: HoldKind, nominalMs: number, started: number, tokensAt?: number[]) => number;

/** The handler of a streamed chat request, holding `d.llmMs` and recording holds with `record`. */
export function streamedChat(d: FakeDelays, record: Record_): (b: Record<string, unknown>, res: ServerResponse, started: number) => Promise<void> {
  /** A call's token gaps: a seeded sequence, so runs are alike and calls differ. */
  const gapSeeds = new Map<string, number>();
  const nextGap = (call: string): number => {
    let x = gapSeeds.get(call) ?? [...call].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
    x = (x * 1103515245 + 12345) >>> 0;
    gapSeeds.set(call, x);
    return d.tokenGapMinMs + ((x >>> 8) % 1000) / 1000 * (d.tokenGapMaxMs - d.tokenGapMinMs);
  };

  /**
   * The streamed reply: every token written after its gap; the hold ends at the first token, and
   * the write time of every token is kept (`tokensAt`, epoch ms) so a bench can tell how long the
   * model itself took to write the text the agent waited for.
   */
  return async function streamChat(b: Record<string, unknown>, res: ServerResponse, started: number): Promise<void> {
    const call = String(b.model ?? '');
    // The request that carries the tool's result (the last message): the reply after the tool.
    const afterTool = (b.messages as { role?: string }[] | undefined)?.at(-1)?.role === 'tool';
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'bench', object: 'chat.completion.chunk', created: 0, model: call, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const tokens = afterTool ? STREAM_AFTER_TOOL : STREAM_REPLY;
    await sleep(d.llmMs);
    const tokensAt: number[] = [];
    for (let i = 0; i < tokens.length && !res.destroyed; i++) {
      if (i > 0) await sleep(nextGap(call));
      // Stamped once written (a response corks its socket until the next tick): the fake's own
      // serialising and writing are inside the model's time, not the agent's.
      res.write(chunk({ content: tokens[i] }), () => {
        tokensAt[i] = epochNow();
        if (i === 0) record(afterTool ? `${call}#tool` : call, 'llm', d.llmMs, started, tokensAt);
      });
    }
    if (!afterTool) {
      await sleep(nextGap(call));
      res.write(chunk({ tool_calls: [{ index: 0, id: `call_${tokensAt.length}`, type: 'function', function: { name: STREAM_TOOL, arguments: '{"account":"4521"}' } }] }));
      res.end(chunk({}, 'tool_calls') + 'data: [DONE]\n\n');
    } else {
      res.end(chunk({}, 'stop') + 'data: [DONE]\n\n');
    }
  };
}
