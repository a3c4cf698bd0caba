/**
 * The line said before the embedded sandbox voices phrases its recognizer does not know yet
 * (`runCall`, `startTestSandbox`, `createAgentServer`): seconds a phrase on a busy machine the
 * first time, which looked like a hang without it.
 */
export function voicingLine(count: number, voices: readonly string[], dir: string | undefined): string {
  const where = dir ? `kept in ${dir}` : 'kept in memory for this process; HIWAR_SANDBOX_RENDER_CACHE=DIR keeps them on disk';
  return `voicing ${count} phrase${count === 1 ? '' : 's'} for the sandbox's recognizer in ${voices.length === 1 ? voices[0] : `${voices.length} voices`} (the first time: seconds each on a busy machine; ${where})…`;
}
