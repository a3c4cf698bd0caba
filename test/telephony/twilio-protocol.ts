import type { PlatformProtocol, ServerSays } from './far-end.ts';
import { fromBase64, g711Decode, g711Encode, readJson, text, toBase64 } from './far-codec.ts';
import { platformFixture } from './fixture-files.ts';

/**
 * Twilio's side of a bidirectional Media Stream, for the far end in tests: every message is the
 * documented one of test/fixtures/platforms/twilio/ with this call's ids and audio put in, and
 * audio is mu-law from the ITU-T table (far-codec.ts), never hiwar's own helpers.
 */
export function twilioProtocol(callSid: string, customParameters: Record<string, string> = {}, streamSid = `MZ${callSid}`): PlatformProtocol & { wrongSid: number } {
  const doc = platformFixture('twilio').fromPlatform;
  const from = (k: string) => structuredClone(doc[k].message);
  let n = 1;
  const p = {
    rate: 8000,
    wrongSid: 0,
    opening: () => {
      const start = from('start');
      start.sequenceNumber = String(n++);
      start.streamSid = start.start.streamSid = streamSid;
      start.start.callSid = callSid;
      start.start.customParameters = customParameters;
      return [text(from('connected')), text(start)];
    },
    audio: (pcm: Int16Array, seq: number) => {
      const m = from('media');
      Object.assign(m, { sequenceNumber: String(n++), streamSid });
      Object.assign(m.media, { chunk: String(seq), timestamp: String(seq * 20), payload: toBase64(g711Encode('mulaw', pcm)) });
      return text(m);
    },
    dtmf: (digit: string) => {
      const m = from('dtmf');
      Object.assign(m, { streamSid, sequenceNumber: String(n++) });
      m.dtmf.digit = digit;
      return text(m);
    },
    stop: () => {
      const m = from('stop');
      Object.assign(m, { sequenceNumber: String(n++), streamSid });
      m.stop.callSid = callSid;
      return text(m);
    },
    read(msg: Parameters<PlatformProtocol['read']>[0]): ServerSays[] {
      const m = readJson(msg);
      if (!m) return [{ type: 'other', raw: msg }];
      if (m.streamSid !== streamSid) p.wrongSid++;
      if (m.event === 'media') return [{ type: 'audio', pcm: g711Decode('mulaw', fromBase64(m.media.payload)) }];
      if (m.event === 'mark') return [{ type: 'mark', name: m.mark.name }];
      if (m.event === 'clear') return [{ type: 'clear' }];
      return [{ type: 'other', raw: m }];
    },
    ackMark: (name: string) => {
      const m = from('mark');
      Object.assign(m, { sequenceNumber: String(n++), streamSid, mark: { name } });
      return text(m);
    },
    // Twilio sends back every mark still queued when a clear empties its buffer.
    onClear: (dropped: string[]) => dropped.map((name) => p.ackMark(name)),
  };
  return p;
}
