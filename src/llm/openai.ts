import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import { MODELS } from '../models.ts';
import { requestHeaders, scrub, streamChatBatches, targetOf } from './chat-stream.ts';
import { probeModels } from './model-probe.ts';
import { PRIMED_REQUEST_DEFAULTS, PrimedRequests } from './primed-requests.ts';
import type { ChatMessage, Llm, LlmEvent, LlmRequest, Tool, ToolCall } from './types.ts';
import { loadZod } from './zod.ts';

/** Options of `OpenAiLlm`: the model, key, base URL and what to send with each request. */
export interface OpenAiOptions {
  /** @default 'not-needed' (local servers take any key) */
  apiKey?: string;
  /** Any OpenAI-compatible server (vLLM, Ollama, LM Studio, a gateway…). @default OpenAI's */
  baseURL?: string;
  /** @default MODELS.llm */
  model?: string;
  temperature?: number;
  /** Until the response's headers, per attempt. @default 30_000 */
  timeoutMs?: number;
  /**
   * Headers sent with every request (a gateway's routing header, `OpenAI-Organization`, Azure's
   * `api-key`); one named like a built-in one replaces it, `null` leaves it out (`authorization:
   * null` where only `api-key` may be sent).
   * @default none
   */
  defaultHeaders?: Record<string, string | null>;
  /** Query parameters added to every request (Azure's `api-version`). @default none */
  defaultQuery?: Record<string, string>;
  /**
   * The next model request made ready on the kept-alive connection after each response, so a
   * turn's request is written the moment its body is built (`PRIMED_REQUEST_DEFAULTS`: how long
   * an unused one is kept, how many); `false`: each request made when it is sent.
   * @default PRIMED_REQUEST_DEFAULTS
   */
  primedRequests?: Partial<typeof PRIMED_REQUEST_DEFAULTS> | false;
  /**
   * Your own `OpenAI` (or `AzureOpenAI`) instance from the `openai` package: requests then stream
   * through it (`chat.completions.create`), with everything it was configured with (key, URL,
   * headers, query, custom `fetch` or proxy, organization and project, Azure AD tokens, timeout,
   * retries). Slower per request than the built-in path (docs/llm.md); connection options
   * (`apiKey`, `baseURL`, `timeoutMs`, `defaultHeaders`, `defaultQuery`, `primedRequests`) go on the
   * client instead, or do not apply.
   * @default none: the built-in keep-alive path
   */
  client?: OpenAI;
}

/** The options that only the built-in path reads: with a `client`, its own settings apply. */
const CONNECTION_OPTIONS = ['apiKey', 'baseURL', 'timeoutMs', 'defaultHeaders', 'defaultQuery', 'primedRequests'] as const;

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type StreamingBody = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;

type OpenAiMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

function toOpenAi(m: ChatMessage): OpenAiMessage {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content };
  if (m.role === 'assistant') {
    return {
      role: 'assistant',
      content: m.content || null,
      ...(m.tool_calls?.length
        ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
        : {}),
    };
  }
  return { role: m.role, content: m.content };
}

type OpenAiTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

/**
 * Tools as the API wants them, converted once per tool: z.toJSONSchema walks the whole schema,
 * and the same tools go with every request of every call.
 */
const converted = new WeakMap<Tool, OpenAiTool>();
function toOpenAiTool(t: Tool): OpenAiTool {
  let c = converted.get(t);
  if (!c) {
    c = { type: 'function', function: { name: t.name, description: t.description, parameters: loadZod().z.toJSONSchema(t.parameters) as Record<string, unknown> } };
    converted.set(t, c);
  }
  return c;
}

/**
 * Chat Completions streaming, with the `openai` package's request types, errors and retry
 * policy; tools declared from zod schemas. The request goes over chat-stream.ts (see there why),
 * or through the user's own `openai` client when one is given: the reply is read the same way.
 *
 * @example
 * const llm = new OpenAiLlm({ model: 'gpt-4o-mini', apiKey: process.env.OPENAI_API_KEY });
 * const session = new AgentSession({ client, transport, agent, llm });
 */
export class OpenAiLlm implements Llm {
  readonly name: string;
  private readonly model: string;
  /** The built-in path's requests made ahead (src/llm/primed-requests.ts). */
  private primed: PrimedRequests | undefined;

  /** Configured only by its options; the CLI maps the environment onto them (`src/cli/llm.ts`). */
  constructor(private readonly opts: OpenAiOptions = {}) {
    const clash = opts.client && CONNECTION_OPTIONS.filter((k) => opts[k] !== undefined);
    if (clash?.length) throw new TypeError(`OpenAiLlm: ${clash.join(', ')} cannot be set beside \`client\`: set them on the client itself`);
    this.model = opts.model ?? MODELS.llm;
    this.name = `openai:${this.model}`;
  }

  /** Streams one Chat Completions reply as text deltas and tool calls. */
  async *stream(req: LlmRequest): AsyncIterable<LlmEvent> {
    const tools = req.tools.map(toOpenAiTool);
    const body: StreamingBody = {
      model: this.model,
      messages: req.messages.map(toOpenAi),
      stream: true,
      ...(tools.length ? { tools } : {}),
      ...(this.opts.temperature !== undefined ? { temperature: this.opts.temperature } : {}),
    };
    // The request's own signal: the caller's abort until the model's finish, then the drain's limit.
    const request = new AbortController();
    const onAbort = () => request.abort();
    if (req.signal.aborted) request.abort();
    else req.signal.addEventListener('abort', onAbort, { once: true });
    const stream = this.batches(body, request.signal);
    const calls = new Map<number, ToolCall>();
    const it = stream[Symbol.asyncIterator]();
    let draining = false;
    try {
      for (;;) {
        const next = await it.next();
        if (next.done) break;
        // The deltas that came in one read go on as one text event: the same text, in fewer
        // steps through the reply's stages (each costs the turn's first sentence a little).
        let text = '';
        let finished = false;
        for (const chunk of next.value) {
          const choice = chunk.choices[0];
          const delta = choice?.delta;
          if (delta?.content) text += delta.content;
          for (const tc of delta?.tool_calls ?? []) {
            const call = calls.get(tc.index) ?? { id: '', name: '', arguments: '' };
            if (tc.id) call.id = tc.id;
            if (tc.function?.name) call.name += tc.function.name;
            if (tc.function?.arguments) call.arguments += tc.function.arguments;
            calls.set(tc.index, call);
          }
          if (choice?.finish_reason) {
            finished = true;
            break;
          }
        }
        if (text) yield { type: 'text', delta: text };
        if (finished) {
          // The model's last word: the reply's last sentence (which the chunker holds until the
          // text ends) goes to synthesis now, not once [DONE] and the end of the body arrive.
          // The rest is read in the background, so the connection goes back to the pool.
          draining = true;
          void drain(it, request);
          break;
        }
      }
    } finally {
      req.signal.removeEventListener('abort', onAbort);
      if (!draining) await it.return?.(undefined);
    }
    if (calls.size) yield { type: 'tool_calls', calls: [...calls.values()] };
  }

  /** `GET {baseURL}/models`, no retry (readiness: src/server/service-reachability.ts); through your `client` when given. */
  async probe(o: { timeoutMs: number }): Promise<void> {
    const { client } = this.opts;
    if (client) return void (await client.models.list({ timeout: o.timeoutMs, maxRetries: 0 }));
    const { defaultHeaders: headers, defaultQuery: query } = this.opts;
    await probeModels({ baseURL: this.opts.baseURL ?? 'https://api.openai.com/v1', apiKey: this.opts.apiKey ?? 'not-needed', timeoutMs: o.timeoutMs, ...(headers ? { headers } : {}), ...(query ? { query } : {}) });
  }

  /** The address probed (shown in `/readyz`), and a key that tells apart what each probe sends (a hash: never the API key itself). */
  probeTarget(): { name: string; key: string } {
    const { client } = this.opts;
    const baseURL = client ? client.baseURL : (this.opts.baseURL ?? 'https://api.openai.com/v1');
    const sent = client ? [client.baseURL, client.apiKey] : [baseURL, this.opts.apiKey ?? '', JSON.stringify(this.opts.defaultHeaders ?? {}), JSON.stringify(this.opts.defaultQuery ?? {})];
    return { name: shownAddress(baseURL), key: createHash('sha256').update(sent.join('\n')).digest('hex') };
  }

  /** The chunks as they arrived together (one read of the body; one chunk at a time from a client). */
  private batches(body: StreamingBody, signal: AbortSignal): AsyncIterable<Chunk[]> {
    const { client } = this.opts;
    if (client) return clientStream(client, body, signal);
    const baseURL = this.opts.baseURL ?? 'https://api.openai.com/v1';
    const apiKey = this.opts.apiKey ?? 'not-needed';
    const headers = this.opts.defaultHeaders;
    const query = this.opts.defaultQuery;
    const primed = this.opts.primedRequests;
    if (primed !== false) this.primed ??= new PrimedRequests(targetOf(baseURL, query), requestHeaders({ apiKey, headers }), primed);
    return streamChatBatches(body, {
      baseURL,
      apiKey,
      timeoutMs: this.opts.timeoutMs ?? 30_000,
      maxRetries: 1,
      signal,
      ...(this.primed ? { primed: this.primed } : {}),
      ...(headers ? { headers } : {}),
      ...(query ? { query } : {}),
    });
  }
}

/**
 * The chunks through the user's client. Its stream ends quietly on an abort and throws the same
 * error classes as chat-stream.ts; leaving the loop early aborts its request (the SDK's `return`).
 */
async function* clientStream(client: OpenAI, body: StreamingBody, signal: AbortSignal): AsyncGenerator<Chunk[]> {
  try {
    for await (const chunk of await client.chat.completions.create(body, { signal })) yield [chunk];
  } catch (err) {
    // The key out of an error the server echoed it in, as on the built-in path (chat-stream.ts).
    if (err instanceof Error) err.message = scrub(err.message, { apiKey: client.apiKey ?? '' });
    const refused = (err as { error?: unknown }).error;
    if (refused && typeof refused === 'object') (err as { error: unknown }).error = JSON.parse(scrub(JSON.stringify(refused), { apiKey: client.apiKey ?? '' }));
    throw err;
  }
}

/** After the finish, a server that never ends the body loses its connection after this long. */
const DRAIN_LIMIT_MS = 10_000;

/** Reads what follows the finish (a usage chunk, [DONE], the end of the body) and drops it. */
async function drain(it: AsyncIterator<unknown>, request: AbortController): Promise<void> {
  const limit = setTimeout(() => request.abort(), DRAIN_LIMIT_MS);
  limit.unref();
  try {
    while (!(await it.next()).done);
  } catch {
    // After the model's last word: nothing left to report.
  } finally {
    clearTimeout(limit);
  }
}

/** An address as `/readyz` may show it: no user or password, no query (a key may ride in either). */
function shownAddress(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return 'the model';
  }
}
