// prism-media (ffmpeg's transcoder, the Ogg demuxer, the Opus decoder), loaded by the first
// decode that needs it rather than by every import of hiwar or the sandbox (docs/testing.md,
// "Start-up"). The same CommonJS module `import prism from 'prism-media'` would give.
import { createRequire } from 'node:module';
import type Prism from 'prism-media';

let prism: typeof Prism | undefined;

/** The `prism-media` module, loaded on first use. */
export const loadPrism = (): typeof Prism => (prism ??= createRequire(import.meta.url)('prism-media') as typeof Prism);
