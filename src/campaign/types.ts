/**
 * What a campaign is made of: contacts to call, the settings that decide when, and the small
 * interface (`Dialer`) through which calls are placed, so the campaign logic knows nothing of the
 * platforms.
 */

/** One person to call: a row of the contacts file. */
export interface Contact {
  /** The number, E.164 (`+9665…`). */
  number: string;
  /** The row's other columns: reach the agent as call variables (`{name}` in its greeting). */
  variables: Record<string, string>;
  /** IANA zone of the contact (the `timezone` column); default: the window's zone. */
  timeZone?: string;
  /** The row's line in the contacts file (1 is the header), for reports. */
  line?: number;
}

/**
 * How one attempt ended. The platform's outcomes (`completed`, `busy`, `no-answer`, `failed`,
 * `canceled`), `canceled-draining` (still ringing when the server that placed it stopped waiting
 * at its drain's bound: hiwar hung it up), `no-media` (answered, but its media never connected to
 * any instance: hiwar hung it up, the person heard silence), what answering-machine detection adds (`machine-voicemail`,
 * `machine-unavailable`), `invalid` (the call could not be placed as asked: nothing was dialled)
 * and `failed-unknown` (a dial found started with no outcome after a worker died, and the
 * platform could not say how it ended).
 */
export type AttemptOutcome =
  | 'completed'
  | 'busy'
  | 'no-answer'
  | 'failed'
  | 'canceled'
  | 'canceled-draining'
  | 'no-media'
  | 'machine-voicemail'
  | 'machine-unavailable'
  | 'invalid'
  | 'failed-unknown';

/**
 * Why nothing was dialled for an attempt, when nothing was: the request was wrong as given
 * (`invalid-request`: outcome `invalid`, never retried); the platform's REST API refused the
 * dial request (`platform-refused`: an HTTP error) or could not be reached for it
 * (`platform-unreachable`: network, DNS, time-out, a malformed API address); or something else
 * stopped it before the platform (`dial-error`: a credential missing, the calls' records out of
 * reach); or the server the call's media would come back to was draining (`server-draining`:
 * shutting down, it places no new call). All but the first are outcome `failed`, retried as `failed` is. The same in process
 * and on a cluster's workers; such an attempt is not counted among a campaign's calls placed
 * (`dials`).
 */
export type NotPlaced = 'invalid-request' | 'platform-refused' | 'platform-unreachable' | 'server-draining' | 'dial-error';

/** What a dialler reports once a call has ended. */
export interface CallResult {
  outcome: AttemptOutcome;
  /** Set when nothing was dialled, and why; absent for a call the platform took. */
  notPlaced?: NotPlaced;
  /** The call's id (hiwar's), when one was placed. */
  callId?: string;
  /** Answering-machine detection's class, when it ran (`human`, `machine-voicemail`…). */
  amd?: string;
  /** Seconds the answered call lasted. */
  durationS?: number;
  /** What was said, as text (`agent: …` / `caller: …` lines), when known. */
  transcript?: string;
  /** What the agent's tools returned that matters to the campaign (`{"appointment": "confirmed"}`). */
  toolResults?: Record<string, unknown>;
  /** Why the call failed, when it did. */
  error?: string;
}

/** One dial the campaign asks for. `dialId` names this (contact, attempt) and nothing else. */
export interface DialAttempt {
  campaignId: string;
  /** The contact's index in the campaign (0-based). */
  index: number;
  contact: Contact;
  /** 1 for the first try, 2 for the first retry… */
  attempt: number;
  /** `<campaign>:<index>:<attempt>`: the same for every worker that might see this attempt. */
  dialId: string;
}

/**
 * How calls are placed. `dial` places one call and resolves once it has ended (it should not
 * throw: a failure is an outcome; what it throws is taken as `failed`). `recover` is asked about
 * an attempt found started with no outcome (its worker died mid-dial): the platform's answer if
 * it has one, else undefined (the attempt then counts as `failed-unknown`; it is never dialled
 * again blindly).
 */
export interface Dialer {
  /** Places the attempt's call and resolves with its outcome once final. */
  dial(d: DialAttempt): Promise<CallResult>;
  /** What became of an attempt whose worker died mid-dial, if the platform can say. */
  recover?(d: DialAttempt): Promise<CallResult | undefined>;
}

/** A contact's state in a campaign. */
export type ContactStatus = 'pending' | 'dialling' | 'done' | 'do-not-call' | 'cancelled';

/** One attempt, as recorded: `startedAt` is written before the call is placed. */
export interface AttemptRecord extends Partial<CallResult> {
  attempt: number;
  /** Campaign-clock ms when the dial was recorded as started. */
  startedAt: number;
  /** Campaign-clock ms when its outcome was recorded. */
  endedAt?: number;
}

/** A contact and what happened to it so far. */
export interface ContactState {
  index: number;
  contact: Contact;
  status: ContactStatus;
  attempts: AttemptRecord[];
  /** When the next attempt may be dialled (campaign-clock ms); 0 = at once. */
  notBefore: number;
  /** Set while the last result is saved but not yet streamed to the sinks. */
  unreported?: true;
}

/** Whether the campaign runs. */
export type CampaignState = 'running' | 'paused' | 'cancelled' | 'done';
