// The parts of rxjs hiwar's code uses, each loaded from its own file. `import … from 'rxjs'` runs
// the package's whole CommonJS index under Node (223 files, every operator and scheduler), about a
// fifth of what `import 'hiwar'` cost; these few classes and operators with what they need are
// about 50 files (docs/testing.md, "Figures: start-up"). They are the very modules that index
// re-exports, so an Observable made here is the one a user's own `import … from 'rxjs'` knows, and
// the types are rxjs's own. `require` rather than `import`: Node's ES-module view of each CommonJS
// file costs a lexing pass and a wrapper module of its own, twice what the file does.
import { createRequire } from 'node:module';
import type * as Rx from 'rxjs';

const load = createRequire(import.meta.url);
const rx = <T>(path: string): T => load(`rxjs/internal/${path}`) as T;

export const Observable: typeof Rx.Observable = rx<typeof Rx>('Observable').Observable;
export type Observable<T> = Rx.Observable<T>;
export const Subject: typeof Rx.Subject = rx<typeof Rx>('Subject').Subject;
export type Subject<T> = Rx.Subject<T>;
export const BehaviorSubject: typeof Rx.BehaviorSubject = rx<typeof Rx>('BehaviorSubject').BehaviorSubject;
export type BehaviorSubject<T> = Rx.BehaviorSubject<T>;
export const ReplaySubject: typeof Rx.ReplaySubject = rx<typeof Rx>('ReplaySubject').ReplaySubject;
export type ReplaySubject<T> = Rx.ReplaySubject<T>;
export const Subscription: typeof Rx.Subscription = rx<typeof Rx>('Subscription').Subscription;
export type Subscription = Rx.Subscription;
export const firstValueFrom: typeof Rx.firstValueFrom = rx<typeof Rx>('firstValueFrom').firstValueFrom;
export const timer: typeof Rx.timer = rx<typeof Rx>('observable/timer').timer;
export const race: typeof Rx.race = rx<typeof Rx>('observable/race').race;
export const filter: typeof Rx.filter = rx<typeof Rx>('operators/filter').filter;
export const map: typeof Rx.map = rx<typeof Rx>('operators/map').map;
export const take: typeof Rx.take = rx<typeof Rx>('operators/take').take;
export const tap: typeof Rx.tap = rx<typeof Rx>('operators/tap').tap;
export const switchMap: typeof Rx.switchMap = rx<typeof Rx>('operators/switchMap').switchMap;
