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
}

export const MODELS: SandboxModel[] = [
  { id: '1', model_id: 'tts-v1-preview', model_name: 'TTS v1 preview', cost: 2, description: 'Arabic text to speech (sandbox: espeak-ng)', kind: 'tts' },
  { id: '2', model_id: 'tts-v1.5', model_name: 'TTS v1.5', cost: 2, description: 'Arabic text to speech with word timestamps (sandbox: espeak-ng)', timestamps: true, kind: 'tts' },
  { id: '3', model_id: 'asr', model_name: 'ASR', cost: 1, description: 'Arabic speech recognition (sandbox: closed-set matcher)', kind: 'stt' },
  { id: '4', model_id: 'asr-en-ar', model_name: 'ASR English-Arabic', cost: 1, description: 'Mixed Arabic-English recognition (sandbox: closed-set matcher)', kind: 'stt' },
];

export const publicModel = ({ id, model_id, model_name, cost, description }: SandboxModel) => ({ id, model_id, model_name, cost, description });
