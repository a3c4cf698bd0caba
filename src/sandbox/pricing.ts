/**
 * What each operation costs in the sandbox's credits. Text to speech is billed per character,
 * whitespace included (2 credits each, as third-party clients report for the service); speech
 * recognition and denoising per second of audio.
 */
export const CREDITS_PER_TTS_CHAR = 2;
export const CREDITS_PER_AUDIO_SECOND = 1;

export const ttsCost = (text: string) => [...text].length * CREDITS_PER_TTS_CHAR;
export const audioCost = (seconds: number) => Math.ceil(seconds * CREDITS_PER_AUDIO_SECOND);
