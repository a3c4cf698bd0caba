// libphonenumber-js's mobile data, loaded by the first number that needs it (not SA, AE or EG,
// which hiwar reads with its own ranges) instead of by `import 'hiwar'`: about 50–80 ms of CPU
// every process would pay at start-up (src/lazy-require.ts).
import type * as Phone from 'libphonenumber-js/mobile';
import { lazyRequire } from '../lazy-require.ts';

/** The package `libphonenumber-js/mobile` (mobile numbers only are valid). */
export const phoneNumbers = lazyRequire<typeof Phone>('libphonenumber-js/mobile');
