import { DIGITAL_SILENCE_RESTART_WINDOWS, SileroStream } from '../audio/silero-vad.ts';
import { createResampler } from '../audio/resample.ts';

/**
 * Loads what the first `/listen` socket of the process would otherwise load in the middle of the
 * first call: the voice activity model on its WebAssembly runtime (about a second of CPU on the
 * event loop) and libsamplerate. Seen in a newcomer's first call to `createAgentServer` on the
 * embedded sandbox: the greeting stopped for 2 s after its first words, the agent's audio held
 * up behind the load. A failure here is left to the first real use, which reports it.
 */
export async function warmUpListen(): Promise<void> {
  try {
    // With the streams' restart option, so the state they restart from is worked out here too.
    const vad = await SileroStream.create({ restartAfterZeroWindows: DIGITAL_SILENCE_RESTART_WINDOWS });
    await vad.push(new Int16Array(512)); // the first window runs slower: the runtime's own first use
    (await createResampler(8000, 16000)).close();
  } catch {
    // the first call tries again and says what failed
  }
}
