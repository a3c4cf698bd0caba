import { EventSourceParserStream } from 'eventsource-parser/stream';
import { ProtocolError, TransportError } from './errors.ts';

/** Iterates a body, turning a connection that drops mid-stream into a TransportError. */
async function* guarded<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    for await (const item of source) yield item;
  } catch (err) {
    if (err instanceof ProtocolError || err instanceof TransportError) throw err;
    const aborted = err instanceof Error && err.name === 'AbortError';
    throw new TransportError(aborted ? 'stream aborted' : 'connection dropped in the middle of a stream', aborted ? 'aborted' : 'network', { cause: err });
  }
}

/** Text lines of a byte stream, decoded as UTF-8 across chunk boundaries. */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<{ line: string; terminated: boolean }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of guarded(body as unknown as AsyncIterable<Uint8Array>)) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      yield { line: buffer.slice(0, nl).replace(/\r$/, ''), terminated: true };
      buffer = buffer.slice(nl + 1);
    }
  }
  buffer += decoder.decode();
  if (buffer.trim()) yield { line: buffer, terminated: false };
}

/**
 * NDJSON objects. Hand-written because the format is one JSON.parse per line and the error we
 * want (which line, truncated or not) is more useful than a library's generic one.
 */
export async function* ndjson<T>(body: ReadableStream<Uint8Array> | null): AsyncGenerator<T> {
  if (!body) throw new ProtocolError('expected an NDJSON body, got none');
  let n = 0;
  for await (const { line, terminated } of lines(body)) {
    n++;
    if (!line.trim()) continue;
    try {
      yield JSON.parse(line) as T;
    } catch {
      throw new ProtocolError(
        terminated ? `malformed NDJSON at line ${n}` : `NDJSON stream truncated at line ${n}`,
      );
    }
  }
}

export interface SseMessage {
  event: string | undefined;
  data: string;
  id: string | undefined;
}

/** Server-Sent Events of a response body. */
export async function* sse(body: ReadableStream<Uint8Array> | null): AsyncGenerator<SseMessage> {
  if (!body) throw new ProtocolError('expected an event stream, got no body');
  const events = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const e of guarded(events as unknown as AsyncIterable<{ event?: string; data: string; id?: string }>)) {
    yield { event: e.event, data: e.data, id: e.id };
  }
}

/** Raw chunks of a response body as Uint8Array. */
export async function* chunks(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  yield* guarded(body as unknown as AsyncIterable<Uint8Array>);
}
