// rxjs for the tests, loaded file by file as src/rx.ts loads it for hiwar (why there): a test
// that imported `rxjs` itself would load the package's whole index in its process again.
import { createRequire } from 'node:module';
import type * as Rx from 'rxjs';

export * from '../../src/rx.ts';
const load = createRequire(import.meta.url);
export const toArray: typeof Rx.toArray = (load('rxjs/internal/operators/toArray') as typeof Rx).toArray;
export const lastValueFrom: typeof Rx.lastValueFrom = (load('rxjs/internal/lastValueFrom') as typeof Rx).lastValueFrom;
