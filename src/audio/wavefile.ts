// Apart from wav.ts so that no public declaration names wavefile's types: its own declarations
// use `declare module` for a namespace, which TypeScript 7 rejects, and a consumer's `tsc`
// (skipLibCheck off) failed on them through `hiwar`'s declarations.
import type Wavefile from 'wavefile';
import { lazyRequire } from '../lazy-require.ts';

/** wavefile, for the WAV layouts wav.ts reads and writes without it (most files never need it). */
export const loadWavefile = lazyRequire<typeof Wavefile>('wavefile');
