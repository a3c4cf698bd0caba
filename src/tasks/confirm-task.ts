/** `confirmTask`: one yes/no question, asked until the caller answers yes or no (1/2 on the keypad). */
import { isRepeatRequest, parseYesNo } from '../text/parse-yes-no.ts';
import { TASK_DEFAULTS, type TaskOptions } from './defaults.ts';
import type { CollectTask, TaskStep } from './types.ts';

/** A task whose value is the caller's answer: true for yes, false for no. */
export function confirmTask(question: string, options: TaskOptions = {}): CollectTask<boolean> {
  // From plain JavaScript an options object may come first (as digitsTask takes one): say so.
  if (typeof question !== 'string') throw new TypeError(`confirmTask: the question must be a string (confirmTask(question, options)), got ${question === null ? 'null' : typeof question}`);
  if (!question.trim()) throw new TypeError('confirmTask: the question is empty');
  const lines = { ...TASK_DEFAULTS.lines, ...options.lines };
  const max = options.maxAttempts ?? TASK_DEFAULTS.maxAttempts;
  let unclear = 0;
  let silences = 0;
  const giveUp = (reason: 'max_attempts' | 'no_input'): TaskStep<boolean> => ({ say: lines.giveUp, done: { ok: false, reason } });
  return {
    name: 'confirm',
    expecting: () => ({ yesNo: true }),
    start: () => ({ say: question }),
    next(input) {
      silences = 0;
      let answer: 'yes' | 'no' | undefined;
      if (input.kind === 'dtmf') answer = input.digits.startsWith('1') ? 'yes' : input.digits.startsWith('2') ? 'no' : undefined;
      else {
        if (isRepeatRequest(input.text)) return { say: question };
        answer = parseYesNo(input.text);
      }
      if (answer) return { done: { ok: true, value: answer === 'yes' } };
      if (++unclear >= max) return giveUp('max_attempts');
      return { say: `${lines.yesOrNo} ${question}` };
    },
    timeout() {
      if (++silences >= max) return giveUp('no_input');
      return { say: `${lines.noInput} ${question}` };
    },
  };
}
