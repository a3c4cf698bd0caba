export type { CollectTask, TaskInput, TaskResult, TaskStep, TaskFailureReason } from './types.ts';
export { TASK_DEFAULTS, type TaskLines, type TaskOptions } from './defaults.ts';
export { digitsTask, type DigitsKind, type DigitsTaskOptions } from './digits-task.ts';
export { dateTask, amountTask, nameTask, type DateTaskOptions, type AmountTaskOptions } from './value-tasks.ts';
export { confirmTask } from './confirm-task.ts';
export { readName, spellName } from './names.ts';
