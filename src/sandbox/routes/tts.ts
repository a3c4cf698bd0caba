import { encodeWav, pcmToBytes } from '../../audio/wav.ts';
import { alignNormalized, alignText } from '../alignment.ts';
import { badRequest } from '../http/errors.ts';
import type { Route, RouteCtx } from '../http/server.ts';
import { ttsCost } from '../pricing.ts';
import { oneOf, range, requiredString, sampleRate } from './validate.ts';

interface TtsBody {
  streaming: boolean;
  voice_id: string;
  text: string;
  speed?: number;
  rate: number;
}

async function parseTts(ctx: RouteCtx): Promise<TtsBody> {
  const body = await ctx.json();
  const voice_id = requiredString(body.voice_id, 'voice_id');
  const text = requiredString(body.text, 'text');
  range(body.stability, 'stability', 0, 1);
  const speed = range(body.speed, 'speed', 0.7, 1.2);
  const rate = sampleRate(body.sample_rate) ?? 24000;
  oneOf(body.dialect, 'dialect', ['auto', 'emirati', 'fusha']);
  ctx.state.voice(voice_id);
  return { streaming: body.streaming === true, voice_id, text, speed, rate };
}

/** Writes audio in 100 ms pieces so a client sees a stream, not one block. */
async function writePcm(ctx: RouteCtx, pcm: Int16Array, rate: number): Promise<void> {
  const bytes = pcmToBytes(pcm);
  const piece = Math.round(rate / 10) * 2;
  for (let at = 0; at < bytes.length && !ctx.signal.aborted; at += piece) {
    if (!ctx.res.write(Buffer.from(bytes.subarray(at, at + piece)))) {
      await new Promise((r) => ctx.res.once('drain', r));
    }
  }
  ctx.res.end();
}

export const ttsRoutes: Route[] = [
  {
    method: 'POST',
    pattern: /^\/text-to-speech\/([^/]+)$/,
    endpoint: '/text-to-speech',
    handler: async (ctx) => {
      ctx.state.model(ctx.params[0]!, 'tts');
      const tts = await parseTts(ctx);
      ctx.charge(ttsCost(tts.text));
      const out = await ctx.state.synthesize(tts.text, tts.voice_id, { speed: tts.speed, sampleRate: tts.rate });
      if (tts.streaming) {
        ctx.res.writeHead(200, { 'content-type': `audio/raw;codec=pcm16;rate=${tts.rate};channels=1` });
        return writePcm(ctx, out.pcm, tts.rate);
      }
      const wav = encodeWav(out.pcm, tts.rate);
      ctx.res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.byteLength });
      ctx.res.end(Buffer.from(wav));
    },
  },
  {
    method: 'POST',
    pattern: /^\/text-to-speech\/([^/]+)\/with-timestamps$/,
    endpoint: '/text-to-speech',
    handler: async (ctx) => {
      const model = ctx.state.model(ctx.params[0]!, 'tts');
      if (!model.timestamps) throw badRequest(`Word timestamps are not available for model ${model.model_id}`);
      const tts = await parseTts(ctx);
      ctx.charge(ttsCost(tts.text));
      const out = await ctx.state.synthesize(tts.text, tts.voice_id, { speed: tts.speed, sampleRate: tts.rate });
      ctx.res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const bytes = pcmToBytes(out.pcm);
      const piece = Math.round(tts.rate / 5) * 2;
      for (let at = 0; at < bytes.length; at += piece) {
        ctx.res.write(`${JSON.stringify({ audio_base64: Buffer.from(bytes.subarray(at, at + piece)).toString('base64') })}\n`);
      }
      ctx.res.end(
        `${JSON.stringify({ alignment: alignText(tts.text, out.spans), normalized_alignment: alignNormalized(out.words) })}\n`,
      );
    },
  },
];
