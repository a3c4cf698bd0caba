import { randomUUID } from 'node:crypto';
import { encodeWav, pcmToBytes } from '../../audio/wav.ts';
import { publicModel, MODELS } from '../catalogue.ts';
import { genderFromPitch, medianPitch } from '../engines/pitch.ts';
import { badRequest } from '../http/errors.ts';
import { fileField, numField, strField, type Route } from '../http/server.ts';
import { filesBase } from '../files.ts';
import { decodeAudio } from '../media.ts';
import { ttsCost } from '../pricing.ts';
import type { SandboxState } from '../state.ts';
import { range } from './validate.ts';

const UPLOAD_LIMIT = 50 * 1024 * 1024;

/** espeak-ng pitch (0..99) that puts the sandbox voice near the reference speaker's F0. */
function espeakFor(f0: number | undefined): { name: string; pitch: number; wpm: number } {
  const female = genderFromPitch(f0).label === 'female';
  const base = female ? 200 : 120;
  const pitch = f0 === undefined ? 50 : Math.max(5, Math.min(95, Math.round(50 + (f0 - base) / 2)));
  return { name: female ? 'ar+f3' : 'ar', pitch, wpm: 180 };
}

function previewText(form: FormData): string {
  const text = strField(form, 'text', true)!;
  if (text.trim().split(/\s+/u).length < 3 || text.trim().length < 10) {
    throw badRequest('text must contain at least 3 words and 10 characters');
  }
  return text;
}

/** Ensures the sample file of a voice exists (voiced on first request). */
export async function voiceSample(state: SandboxState, voiceId: string): Promise<void> {
  const name = `voices/${voiceId}.wav`;
  if (state.files.has(name)) return;
  const out = await state.synthesize('مرحبا، هذا صوتي في بيئة التجربة.', voiceId, { sampleRate: 24000 });
  state.files.set(name, { bytes: encodeWav(out.pcm, 24000), contentType: 'audio/wav' });
}

export const voiceRoutes: Route[] = [
  {
    method: 'GET',
    pattern: /^\/models$/,
    endpoint: '/models',
    handler: (ctx) => {
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify(MODELS.map(publicModel)));
    },
  },
  {
    method: 'GET',
    pattern: /^\/voices$/,
    endpoint: '/voices',
    handler: (ctx) => {
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      const signed = (r: { voice_id: string }) => ({ ...r, sample_url: ctx.state.signer.sign(filesBase(ctx.base), `voices/${r.voice_id}.wav`) });
      ctx.res.end(JSON.stringify([...ctx.state.voices.values()].map((v) => signed(v.record))));
    },
  },
  {
    method: 'POST',
    pattern: /^\/voices\/preview$/,
    endpoint: '/voices/preview',
    bodyLimit: UPLOAD_LIMIT,
    handler: async (ctx) => {
      const form = await ctx.form();
      const text = previewText(form);
      const similarity = numField(form, 'similarity');
      if (similarity === undefined) throw badRequest('similarity is required');
      range(similarity, 'similarity', 0, 1);
      strField(form, 'model_id', true);
      const speed = range(numField(form, 'speed'), 'speed', 0.7, 1.2);
      const reference = await decodeAudio(await fileField(form, 'file'));
      ctx.charge(ttsCost(text));
      // A temporary voice near the reference speaker's pitch.
      const id = `preview-${randomUUID()}`;
      ctx.state.voices.set(id, {
        record: { voice_id: id, name: 'preview', description: null, gender: null, age: null, languages: ['ar'], dialect: [], type: 'preview', sample_url: '', avatar_url: null },
        espeak: espeakFor(medianPitch(reference.samples, reference.sampleRate)),
      });
      try {
        const out = await ctx.state.synthesize(text, id, { speed, sampleRate: 24000 });
        ctx.res.writeHead(200, { 'content-type': 'audio/raw;codec=pcm16;rate=24000;channels=1' });
        ctx.res.end(Buffer.from(pcmToBytes(out.pcm)));
      } finally {
        ctx.state.voices.delete(id);
      }
    },
  },
  {
    method: 'POST',
    pattern: /^\/voices\/clone$/,
    endpoint: '/voices/clone',
    bodyLimit: UPLOAD_LIMIT,
    handler: async (ctx) => {
      const form = await ctx.form();
      await fileField(form, 'voice_file');
      const reference = await fileField(form, 'reference_audio_file');
      strField(form, 'text', true);
      const stability = numField(form, 'stability');
      if (stability === undefined) throw badRequest('stability is required');
      if (stability < 0 || stability > 1) throw badRequest('stability must be a number between 0 and 1');
      const name = strField(form, 'name', true)!;
      strField(form, 'model', true);
      const audio = await decodeAudio(reference);
      const f0 = medianPitch(audio.samples, audio.sampleRate);
      const voice_id = `cloned-${randomUUID().slice(0, 8)}`;
      const list = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : []);
      const record = {
        id: randomUUID(),
        voice_id,
        name,
        description: strField(form, 'description') ?? null,
        gender: strField(form, 'gender') ?? (f0 ? genderFromPitch(f0).label : null),
        age: strField(form, 'age') ?? null,
        languages: list(strField(form, 'languages')),
        dialect: list(strField(form, 'dialects')),
        type: 'cloned',
        sample_url: `${ctx.base.replace(/\/(uae\/)?api\/v1$/, '')}/files/voices/${voice_id}.wav`,
        avatar_url: strField(form, 'avatar_url') ?? null,
        stability,
      };
      ctx.state.voices.set(voice_id, { record, espeak: espeakFor(f0) });
      await voiceSample(ctx.state, voice_id);
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({ ...record, sample_url: ctx.state.signer.sign(filesBase(ctx.base), `voices/${voice_id}.wav`) }));
    },
  },
];
