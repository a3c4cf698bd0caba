// prism-media (ffmpeg's transcoder, the Ogg demuxer, the Opus decoder), loaded by the first
// decode that needs it rather than by every import of hiwar or the sandbox (src/lazy-require.ts).
import type Prism from 'prism-media';
import { lazyRequire } from '../lazy-require.ts';

/** The `prism-media` module, loaded on first use. */
export const loadPrism = lazyRequire<typeof Prism>('prism-media');
