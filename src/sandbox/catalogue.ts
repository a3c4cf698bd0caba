import type { EspeakVoice } from './engines/espeak.ts';

/** Voices and models the sandbox offers. Ids follow the service's; the sound is espeak-ng's. */
export interface SandboxVoice {
  record: {
    voice_id: string;
    name: string;
    description: string | null;
    gender: string | null;
    age: string | null;
    languages: string[];
    dialect: string[];
    type: string | null;
    sample_url: string;
    avatar_url: string | null;
    [extra: string]: unknown;
  };
  espeak: EspeakVoice;
}

export function builtInVoices(fileBase: string): SandboxVoice[] {
  const v = (voice_id: string, name: string, gender: string, dialect: string, espeak: EspeakVoice): SandboxVoice => ({
    record: {
      voice_id, name, description: `${name}: sandbox voice (espeak-ng ${espeak.name})`, gender, age: 'middle',
      languages: ['ar'], dialect: [dialect], type: 'premade', sample_url: `${fileBase}/voices/${voice_id}.wav`, avatar_url: null,
    },
    espeak,
  });
  return [
    v('ar-najdi-male-2', 'Saad', 'male', 'najdi', { name: 'ar', pitch: 40, wpm: 215 }),
    v('ar-uae-male-1', 'Khalid', 'male', 'emirati', { name: 'ar', pitch: 58, wpm: 210 }),
    v('ar-hijazi-female-1', 'Layla', 'female', 'hijazi', { name: 'ar+f3', pitch: 70, wpm: 215 }),
    // Ids real clients use as defaults and in examples
    // (docs/service-behaviour.md#model-names-and-voice-ids).
    v('ar-hijazi-female-2', 'Reem', 'female', 'hijazi', { name: 'ar+f2', pitch: 66, wpm: 210 }),
    v('ar-najdi-female-1', 'Noura', 'female', 'najdi', { name: 'ar+f4', pitch: 62, wpm: 215 }),
  ];
}

export interface SandboxModel {
  id: string;
  model_id: string;
  model_name: string;
  cost: number;
  description: string;
  /** Served by the v1.5 engine: word timestamps available. */
  timestamps?: boolean;
  kind: 'tts' | 'stt';
  /** The spec's model this id behaves as: the spec's name and the vendor's serve the same. */
  family: 'asr' | 'asr-en-ar' | 'tts-v1-preview' | 'tts-v1.5';
  /** What `Metadata.model` reports: the build served, as the live service does (`munsit-v2`). */
  build: string;
}

const asr = { cost: 1, kind: 'stt', family: 'asr', build: 'munsit-v2', description: 'Arabic speech recognition (sandbox: closed-set matcher)' } as const;
const asrEnAr = { cost: 1, kind: 'stt', family: 'asr-en-ar', build: 'munsit-en-ar-v2', description: 'Mixed Arabic-English recognition (sandbox: closed-set matcher)' } as const;
const tts = { cost: 2, kind: 'tts', family: 'tts-v1-preview', build: 'faseeh-v1-preview', description: 'Arabic text to speech (sandbox: espeak-ng)' } as const;

/**
 * Every model under the spec's name and the vendor's: both ids of one model share its family,
 * so they are validated and served the same way (docs/service-behaviour.md#model-names-and-voice-ids).
 */
export const MODELS: SandboxModel[] = [
  { id: '1', model_id: 'tts-v1-preview', model_name: 'TTS v1 preview', ...tts },
  { id: '2', model_id: 'tts-v1.5', model_name: 'TTS v1.5', cost: 2, description: 'Arabic text to speech with word timestamps (sandbox: espeak-ng)', timestamps: true, kind: 'tts', family: 'tts-v1.5', build: 'tts-v1.5' },
  { id: '3', model_id: 'asr', model_name: 'ASR', ...asr },
  { id: '4', model_id: 'asr-en-ar', model_name: 'ASR English-Arabic', ...asrEnAr },
  { id: '5', model_id: 'faseeh-v1-preview', model_name: 'Faseeh v1 preview', ...tts },
  { id: '6', model_id: 'faseeh-mini-v1-preview', model_name: 'Faseeh mini v1 preview', ...tts, build: 'faseeh-mini-v1-preview' },
  { id: '7', model_id: 'munsit', model_name: 'Munsit', ...asr },
  { id: '8', model_id: 'munsit-en-ar', model_name: 'Munsit English-Arabic', ...asrEnAr },
];

/** A model by id and kind, or undefined. */
export const findModel = (id: string, kind: 'tts' | 'stt'): SandboxModel | undefined => MODELS.find((m) => m.model_id === id && m.kind === kind);

/** STT ids the sandbox knows, for error messages. */
export const STT_MODEL_IDS = MODELS.filter((m) => m.kind === 'stt').map((m) => m.model_id);

export const publicModel = ({ id, model_id, model_name, cost, description }: SandboxModel) => ({ id, model_id, model_name, cost, description });
