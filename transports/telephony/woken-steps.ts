/**
 * Pacing steps (`media-output.ts`) whose timers fired in this turn of the event loop. A loop
 * that wakes late runs its due timers before it reads the sockets that became readable
 * meanwhile; a step sent there would
 * put agent audio on the wire while the caller's speech (or the service's SpeechStarted), already
 * arrived, is still unread, and the barge-in's `clear` would come after it. So the steps run
 * after the loop's reads (`setImmediate`, one for all the calls' steps of the turn): what those
 * reads interrupt is not sent. A step on time finds nothing to read and sends what it would
 * have, a phase of the loop later (a reply's first audio is not a step: it goes at once).
 */
const wokenSteps: (() => void)[] = [];

/** Runs a woken pacing step after this turn's socket reads (one `setImmediate` for every step of the turn). */
export function afterReadyInput(step: () => void): void {
  if (wokenSteps.push(step) === 1) setImmediate(runWokenSteps);
}

function runWokenSteps(): void {
  const steps = wokenSteps.splice(0);
  let failure: { error: unknown } | undefined;
  for (const step of steps) {
    // One call's failing step must not leave the others' audio unsent; the first error still
    // surfaces as it did from its own timer.
    try {
      step();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}
