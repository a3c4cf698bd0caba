/**
 * The loop every collecting task shares: ask, hear a value (speech or keys), check it, read it
 * back, and end on "yes". A "no" asks again, "repeat that" re-reads, a new value said instead of
 * yes is read back in turn, and after `maxAttempts` failures the task ends with a typed failure.
 * Keys: '#' ends what was keyed, '*' clears it; after a read-back, 1 is yes and 2 is no.
 */
import { isRepeatRequest, parseYesNo } from '../text/parse-yes-no.ts';
import { TASK_DEFAULTS, fill, type TaskLines } from './defaults.ts';
import type { TurnExpectation } from '../pipeline/turn-policy.ts';
import type { CollectTask, TaskFailureReason, TaskInput, TaskStep } from './types.ts';

/** What a task heard in one input. */
export type Heard<T> =
  | { value: T; heard: string; problem?: undefined }
  | { value?: undefined; /** why nothing usable was heard */ problem: 'nothing' | 'invalid'; heard?: string; /** Said in place of the task's line for the problem, before the question again. */ say?: string }
  /** A value missing one part ("بكرة العصر" without the hour): `ask` asks for it, and the answer is heard with `partial`. */
  | { value?: undefined; problem: 'incomplete'; partial: T; ask: string; heard?: string };

/** The parts that make one task: how it hears a value and how it reads one back. */
export interface Capture<T> {
  name: string;
  lines: TaskLines;
  maxAttempts?: number;
  /** `partial`: what the caller gave before the question for its missing part (see `Heard`). */
  fromSpeech(text: string, partial?: T): Heard<T>;
  /** `partial`: as for `fromSpeech`, when the keys answer the question for a missing part. */
  fromKeys(digits: string, partial?: T): Heard<T>;
  readBack(value: T): string;
  /** What the caller's answer to the prompt looks like when whole (a number's length), for the turn policy. */
  expects?: TurnExpectation;
}

/** Keys gathered by the session: what was keyed before '#', after the last '*'. */
export function keyed(digits: string): string {
  const beforeEnd = digits.split('#')[0]!;
  return beforeEnd.slice(beforeEnd.lastIndexOf('*') + 1);
}

/** A CollectTask from a capture (the state machine behind every Arabic task). */
export function confirmLoop<T>(capture: Capture<T>): CollectTask<T> {
  const { lines } = capture;
  const max = capture.maxAttempts ?? TASK_DEFAULTS.maxAttempts;
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`${capture.name}: maxAttempts must be a whole number of at least 1, got ${max}`);
  let phase: 'ask' | 'confirm' | 'done' = 'ask';
  let failures = 0;
  let silences = 0;
  let value: T | undefined;
  let lastHeard: string | undefined;
  // A value missing a part, and the question asking for it: the next answer completes it.
  let partial: { value: T; ask: string } | undefined;
  const question = () => partial?.ask ?? lines.prompt;

  const end = (reason: TaskFailureReason): TaskStep<T> => {
    phase = 'done';
    return { say: reason === 'caller_declined' ? undefined : lines.giveUp, done: { ok: false, reason, ...(lastHeard !== undefined ? { lastHeard } : {}) } };
  };
  const confirmLine = () => fill(lines.confirm, lines.label, capture.readBack(value as T));
  const readBack = (v: T): TaskStep<T> => {
    value = v;
    partial = undefined;
    phase = 'confirm';
    return { say: confirmLine() };
  };
  /** One more failure: give up, or say why and ask again. */
  const fail = (why: string): TaskStep<T> => {
    failures++;
    if (failures >= max) return end('max_attempts');
    phase = 'ask';
    return { say: `${why} ${question()}` };
  };
  const heardSomething = (h: Heard<T>, keyed = false): TaskStep<T> => {
    if (h.heard !== undefined) lastHeard = h.heard;
    if (h.value !== undefined) return readBack(h.value);
    if (h.problem === 'incomplete') {
      // Not a failure: the caller gave part of it; ask for the rest.
      partial = { value: h.partial, ask: h.ask };
      phase = 'ask';
      return { say: h.ask };
    }
    return fail(('say' in h ? h.say : undefined) ?? (h.problem === 'invalid' ? fill(keyed ? lines.invalidKeyed : lines.invalid, lines.label) : lines.notUnderstood));
  };

  return {
    name: capture.name,
    // Asking: the value's own shape; reading back: a yes or a no.
    expecting: () => (phase === 'ask' ? capture.expects : phase === 'confirm' ? { yesNo: true } : undefined),
    start() {
      phase = 'ask';
      partial = undefined;
      return { say: lines.prompt };
    },
    next(input: TaskInput): TaskStep<T> {
      if (phase === 'done') throw new Error(`${capture.name}: the task is over; start() begins it again`);
      silences = 0;
      if (input.kind === 'dtmf') {
        const keys = keyed(input.digits);
        if (phase === 'confirm' && (keys === '1' || keys === '2')) {
          if (keys === '1') {
            phase = 'done';
            return { done: { ok: true, value: value as T } };
          }
          return fail(lines.tryAgain);
        }
        if (!keys) return { say: phase === 'ask' ? question() : confirmLine() };
        return heardSomething(capture.fromKeys(keys, phase === 'ask' ? partial?.value : undefined), true);
      }
      const text = input.text;
      if (isRepeatRequest(text)) return { say: phase === 'ask' ? question() : confirmLine() };
      const answer = parseYesNo(text);
      if (phase === 'ask') {
        const h = capture.fromSpeech(text, partial?.value);
        // "لا" to the question itself: the caller will not give it.
        if (h.value === undefined && h.problem === 'nothing' && answer === 'no') return end('caller_declined');
        return heardSomething(h);
      }
      if (answer === 'yes') {
        phase = 'done';
        return { done: { ok: true, value: value as T } };
      }
      // A new value instead of yes ("لا، ٠٥٥…"): read that one back.
      const h = capture.fromSpeech(text);
      if (h.value !== undefined || h.problem === 'invalid' || h.problem === 'incomplete') return heardSomething(h);
      if (answer === 'no') return fail(lines.tryAgain);
      failures++;
      if (failures >= max) return end('max_attempts');
      return { say: `${lines.yesOrNo} ${confirmLine()}` };
    },
    timeout(): TaskStep<T> {
      if (phase === 'done') throw new Error(`${capture.name}: the task is over`);
      silences++;
      if (silences >= max) return end('no_input');
      return { say: `${lines.noInput} ${phase === 'ask' ? question() : confirmLine()}` };
    },
  };
}
