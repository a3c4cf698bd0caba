/**
 * What decides, before a call's session opens any socket of the service, whether it may run:
 * the interface a `CallManager` asks (`CallManagerOptions.admission`), which the cluster's
 * shared budget (src/cluster/admission.ts) and a `--workers` machine's count implement.
 */
import type { Transport } from '../transport/types.ts';

/** Slots of a shared budget held for one call; given back when the call ends. */
export interface AdmissionLease {
  /** Gives the admitted call's place back. */
  release(): Promise<void>;
}

/**
 * Decides, before a call's session opens any socket of the service, whether it may run now (a
 * lease), after a wait, or not at all (undefined: the admission has told the caller and hung up).
 */
export interface CallAdmission {
  /** Admits a call (a lease to release when it ends) or refuses it (undefined); `hooks` hear of a wait. */
  admit(transport: Transport, hooks?: AdmissionHooks, o?: AdmitOptions): Promise<AdmissionLease | undefined>;
}

/** What the server tells an admission of one call. */
export interface AdmitOptions {
  /**
   * The server promised this call its media before it began draining (a webhook answered, a call
   * it placed): an admission that stopped taking calls still runs it if a line is free now.
   */
  promised?: boolean;
}

/** What an admission tells the server of a call it holds. */
export interface AdmissionHooks {
  /** The caller waits for a line, `position` in the queue (1: next). */
  waiting?(position: number): void;
}
