/**
 * What `runCall` and `startTestSandbox` say while a slow step runs: starting the embedded sandbox,
 * voicing the phrases its recognizer is taught (seconds each on a busy machine, the first time in
 * a process). A test runner shows nothing until a test ends, so without these a first call looked
 * hung for a minute.
 */

/** Where the lines go: a function of one line, or `false` for none. */
export type TestProgress = ((line: string) => void) | false;

/** The default: one line on stderr, named so a test runner's output says whose it is. */
export function stderrProgress(line: string): void {
  process.stderr.write(`hiwar/testing: ${line}\n`);
}

/** The function to call for a `progress` option (none given: stderr; `false`: nothing). */
export function progressOf(progress: TestProgress | undefined): (line: string) => void {
  if (progress === false) return () => {};
  return progress ?? stderrProgress;
}

/** How many of `phrases` (trimmed, each once) some voice of `voices` does not know yet. */
export function untaught(phrases: Iterable<string>, voices: readonly string[], knows: (phrase: string, voice: string) => boolean): number {
  return new Set([...phrases].map((p) => p.trim()).filter((p) => p && voices.some((v) => !knows(p, v)))).size;
}
