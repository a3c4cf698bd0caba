declare module '@echogarden/rnnoise-wasm' {
  const RNNoise: () => Promise<unknown>;
  export default RNNoise;
}
