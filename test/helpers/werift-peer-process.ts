/**
 * A WebRTC caller (WeriftPeer) in a process of its own, as a caller's browser is on the caller's
 * machine. In the test's process its DTLS, SRTP and Opus work (about a fifth of a core for one
 * call, measured) shares the CPU of the product under test: starved (scripts/starve.mjs), the
 * caller's line went out late and the agent's playout ran dry because of the rig. This process
 * is exempt from scripts/starve.mjs (HIWAR_STARVE_EXEMPT), as the sandbox of sandbox-process.ts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { SourceLabel } from '../../transports/webrtc/protocol.ts';

type Packet = { seq: number; timestamp: number; marker: boolean; at: number };
type Reply = { t: 'joined'; role: string } | { t: 'said' } | { t: 'done' } | { t: 'error'; message: string } | { t: 'packets'; source: SourceLabel; packets: Packet[] };

// The child module beside this one, compiled or not (the test tree runs .js).
const CHILD = new URL(`./werift-peer-child${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).pathname;

/** A caller in its own process: join, say, and the agent's packets as it received them. */
export class PeerProcess {
  private readonly packets = new Map<SourceLabel, Packet[]>();
  private waiting: ((r: Reply) => void) | undefined;
  role = '';

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (r: Reply) => {
      if (r.t === 'packets') {
        const list = this.packets.get(r.source) ?? [];
        list.push(...r.packets);
        this.packets.set(r.source, list);
      } else this.waiting?.(r);
    });
  }

  /** Starts the process and joins the room with `token`. */
  static async join(baseUrl: string, token: string): Promise<PeerProcess> {
    const child = fork(CHILD, [], { env: { ...process.env, HIWAR_STARVE_EXEMPT: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const peer = new PeerProcess(child);
    const joined = await peer.ask({ t: 'join', url: baseUrl, token });
    if (joined.t === 'joined') peer.role = joined.role;
    return peer;
  }

  private ask(command: unknown): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const onExit = () => reject(new Error(`the caller's process exited (${this.child.exitCode ?? this.child.signalCode})`));
      this.child.once('exit', onExit);
      this.waiting = (r) => {
        this.child.off('exit', onExit);
        this.waiting = undefined;
        if (r.t === 'error') reject(new Error(`caller: ${r.message}`));
        else resolve(r);
      };
      this.child.send(command as object);
    });
  }

  /** What arrived from one source so far (RTP fields and arrival time, Date.now()). */
  from(source: SourceLabel): { packets: Packet[] } {
    return { packets: this.packets.get(source) ?? [] };
  }

  /** Queues 48 kHz speech; the caller sends it 20 ms a packet in place of silence. */
  async say(pcm48: Int16Array): Promise<void> {
    await this.ask({ t: 'say', pcm: Array.from(pcm48) });
  }

  /** Leaves the room and ends the process. */
  async leave(): Promise<void> {
    await this.end('leave');
  }

  /** Drops off without a goodbye (a closed tab) and ends the process; nothing if it has ended. */
  async drop(): Promise<void> {
    await this.end('drop');
  }

  private async end(how: 'leave' | 'drop'): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    await this.ask({ t: how }).catch(() => {});
    // werift's sockets may hold its loop open after the close: the process has done its part.
    this.child.kill('SIGTERM');
    await exited;
  }
}
