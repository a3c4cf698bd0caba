/** Local transports: a simulated caller, WAV files, and the sound card through sox. */
export { SimulatedCaller, hum, type CallerStep, type CallerLine } from '../../src/testing/simulated-caller.ts';
export { WavFileTransport } from './wav-file.ts';
export { SoxTransport, RAW } from './sox.ts';
