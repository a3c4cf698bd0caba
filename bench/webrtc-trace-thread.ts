/**
 * The tick trace (webrtc-trace.ts) inside an agent sender thread, where the packet clock runs:
 * loaded by the thread before any call (`SenderPoolOptions.observer`), driven from the bench by
 * `senders.observe('listenLast' | 'start' | 'stop')`.
 */
import type { PacketClock } from '../transports/webrtc/packet-clock.ts';
import { TickTrace } from './webrtc-trace.ts';

export type TraceRequest = 'listenLast' | 'start' | 'stop';

export function attach(clock: PacketClock): (msg: unknown) => unknown {
  const trace = new TickTrace(clock, true);
  return (msg) => {
    switch (msg as TraceRequest) {
      case 'listenLast':
        return trace.listenLast();
      case 'start':
        return trace.start();
      case 'stop':
        return trace.stop();
      default:
        throw new Error(`unknown trace request ${String(msg)}`);
    }
  };
}
