/**
 * Asterisk chan_websocket (Asterisk 20.16+, 21.11+, 22.6+, 23): `Dial(WebSocket/<client>/c(ulaw))`
 * connects to this server through a `websocket_client.conf` entry. Media is raw BINARY frames
 * in the dialled codec; control is TEXT frames, either the original plain text
 * (`MEDIA_START connection_id:… channel:… format:ulaw optimal_frame_size:160`) or JSON
 * (`{"event":"MEDIA_START",…}`, chosen by `control_message_format=json` in chan_websocket.conf or
 * the `f(json)` dial option). We answer in the format Asterisk spoke.
 *
 * Asterisk re-frames and paces agent audio itself; we send whole multiples of its optimal frame
 * size. Barge-in is `FLUSH_MEDIA`. Playout: with JSON control, `MARK_MEDIA` + correlation id is
 * answered by `MEDIA_MARK_PROCESSED` when the mark reaches the front of the queue; plain-text
 * control has no per-mark report, so the transport's send clock (which keeps only a small lead in
 * Asterisk's queue) says what was heard. `MEDIA_XOFF`/`MEDIA_XON` pause and resume sending;
 * `HANGUP` ends the call from inside the stream.
 */
import { dtmfEvent, json, type Inbound, type MediaFormat, type ProviderConnection, type TelephonyProvider, type WireCodec, type WireMessage } from './provider.ts';

export type ControlFormat = 'plain' | 'json';

/** Asterisk format names we carry: G.711 and signed linear (host order, little-endian on x86/arm). */
export const ASTERISK_FORMATS: Record<string, { codec: WireCodec; sampleRate: number }> = {
  ulaw: { codec: 'mulaw', sampleRate: 8000 },
  alaw: { codec: 'alaw', sampleRate: 8000 },
  slin: { codec: 'l16', sampleRate: 8000 },
  slin12: { codec: 'l16', sampleRate: 12000 },
  slin16: { codec: 'l16', sampleRate: 16000 },
  slin24: { codec: 'l16', sampleRate: 24000 },
  slin32: { codec: 'l16', sampleRate: 32000 },
  slin44: { codec: 'l16', sampleRate: 44100 },
  slin48: { codec: 'l16', sampleRate: 48000 },
};

/**
 * Milliseconds of agent audio per BINARY message: five 20 ms frames, well under chan_websocket's
 * 65500-byte message limit at every rate.
 */
export const ASTERISK_MESSAGE_MS = 100;

/** A control message split into its name and fields, whichever format it came in. */
export interface AsteriskControl {
  name: string;
  fields: Record<string, unknown>;
  /** Words after the name that are not `key:value` (plain-text ids). */
  words: string[];
  format: ControlFormat;
}

export function parseControl(text: string): AsteriskControl | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const m = JSON.parse(trimmed);
      return typeof m?.event === 'string' ? { name: m.event, fields: m, words: [], format: 'json' } : undefined;
    } catch {
      return undefined;
    }
  }
  const [name, ...rest] = trimmed.split(/\s+/);
  if (!name || !/^[A-Z_]+$/.test(name)) return undefined;
  const fields: Record<string, string> = {};
  const words: string[] = [];
  for (const w of rest) {
    const at = w.indexOf(':');
    if (at > 0) fields[w.slice(0, at)] = w.slice(at + 1);
    else words.push(w);
  }
  return { name, fields, words, format: 'plain' };
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : undefined);

class AsteriskConnection implements ProviderConnection {
  private format: ControlFormat = 'plain';
  private started = false;
  /**
   * Present only once MEDIA_START came in JSON: the transport reads its presence when the call
   * starts to choose acknowledged marks or its send clock.
   */
  mark?: (name: string) => WireMessage;

  parse(msg: WireMessage): Inbound[] {
    if ('binary' in msg) return this.started ? [{ type: 'audio', payload: msg.binary }] : [{ type: 'invalid', reason: 'audio before MEDIA_START' }];
    const c = parseControl(msg.text);
    if (!c) return [{ type: 'invalid', reason: `unreadable Asterisk control message: ${msg.text.slice(0, 60)}` }];
    switch (c.name) {
      case 'MEDIA_START':
        return [this.start(c)];
      case 'DTMF_END': {
        return dtmfEvent(c.fields.digit, 'DTMF_END without a valid digit');
      }
      case 'MEDIA_MARK_PROCESSED': {
        const name = text(c.fields.correlation_id) ?? c.words[0];
        return name ? [{ type: 'mark', name }] : [];
      }
      case 'MEDIA_XOFF':
        return [{ type: 'pause-output' }];
      case 'MEDIA_XON':
        return [{ type: 'resume-output' }];
      case 'HANGUP':
        return [{ type: 'stop', reason: 'hangup' }];
      case 'DTMF_BEGIN':
      case 'STATUS':
      case 'QUEUE_DRAINED':
      case 'MEDIA_BUFFERING_COMPLETED':
        return [];
      case 'ERROR':
        return [{ type: 'invalid', reason: `Asterisk reported an error: ${msg.text.slice(0, 120)}` }];
      default:
        return [{ type: 'invalid', reason: `unknown Asterisk event ${c.name}` }];
    }
  }

  private start(c: AsteriskControl): Inbound {
    const name = text(c.fields.format) ?? 'ulaw';
    const known = ASTERISK_FORMATS[name];
    if (!known) return { type: 'invalid', reason: `Asterisk format ${name} is not carried (use ulaw, alaw or slin*)` };
    const callId = text(c.fields.channel_id) ?? text(c.fields.connection_id) ?? text(c.fields.channel);
    if (!callId) return { type: 'invalid', reason: 'MEDIA_START without channel_id, connection_id or channel' };
    this.format = c.format;
    this.started = true;
    if (c.format === 'json') this.mark = (name) => this.command('MARK_MEDIA', { correlation_id: name });
    const parameters: Record<string, string> = {};
    const vars = c.fields.channel_variables;
    if (vars && typeof vars === 'object') for (const [k, v] of Object.entries(vars)) if (text(v)) parameters[k] = text(v)!;
    if (text(c.fields.channel)) parameters.channel = text(c.fields.channel)!;
    const wire: MediaFormat = { ...known, frameMs: ASTERISK_MESSAGE_MS };
    return {
      type: 'start',
      call: { callId, streamId: text(c.fields.connection_id), parameters },
      input: { ...known, frameMs: 20 },
      output: wire,
    };
  }

  /** A command in the control format Asterisk used. */
  command(name: string, extra: Record<string, string> = {}): WireMessage {
    return this.format === 'json' ? json({ command: name, ...extra }) : { text: [name, ...Object.values(extra)].join(' ') };
  }

  encodeAudio(payload: Uint8Array): WireMessage {
    return { binary: payload };
  }

  clear(): WireMessage {
    return this.command('FLUSH_MEDIA');
  }

  hangup(): WireMessage[] {
    return [this.command('HANGUP')];
  }
}

export const asterisk: TelephonyProvider = {
  name: 'asterisk',
  staticMediaToken: true,
  // websocket_client.conf's `protocols = media`: Asterisk takes an answer without it, a strict
  // client (ws, browsers) fails the handshake ("Server sent no subprotocol").
  subprotocol: 'media',
  open: () => new AsteriskConnection(),
};
