/** Answering-machine detection: the pure detector, its options and the carrier/voicemail phrases. */
export { AmdDetector } from './detector.ts';
export {
  AMD_DEFAULTS,
  AMD_PHRASES,
  type AmdClass,
  type AmdDecision,
  type AmdOptions,
  type AmdPhrase,
  type AmdSignals,
  type ToneSegment,
} from './options.ts';
