import type { WebSocket } from 'ws';
import { findModel } from '../catalogue.ts';
import type { KeyState } from '../keys.ts';
import type { SandboxState } from '../state.ts';
import { ListenSession, type ListenParams } from './listen-session.ts';
import { closeReason } from './close-reason.ts';

type Check = { ok: true; params: ListenParams } | { ok: false; message: string };

/**
 * Query parameters of /listen, with the live service's rules (4002 for a bad value). Both
 * names of a model (`asr-en-ar`, `munsit-en-ar`) follow the same rules; an unknown model is
 * served as the default silently, as live, and Metadata names the build that was served.
 */
export function listenParams(q: URLSearchParams): Check {
  const served = findModel(q.get('model') ?? 'asr', 'stt') ?? findModel('asr', 'stt')!;
  const enAr = served.family === 'asr-en-ar';
  const rate = Number(q.get('sample_rate') ?? 16000);
  if (rate !== 8000 && rate !== 16000) return { ok: false, message: `unsupported sample_rate ${q.get('sample_rate')}: use 8000 or 16000` };
  const encoding = q.get('encoding');
  if (encoding && encoding !== 'linear16') return { ok: false, message: `unsupported encoding ${encoding}: use linear16` };
  if (q.get('channels') && q.get('channels') !== '1') return { ok: false, message: 'only mono audio (channels=1) is supported' };
  const allowed = enAr ? ['auto', 'ar', 'en', 'ar-en'] : ['ar'];
  const language = q.get('language') ?? (enAr ? 'auto' : 'ar');
  if (!allowed.includes(language)) return { ok: false, message: `unsupported language ${language} for model ${q.get('model') ?? 'asr'}` };
  const endpointing = q.get('endpointing') === null ? 700 : Number(q.get('endpointing'));
  if (!Number.isFinite(endpointing) || endpointing < 100 || endpointing > 5000) {
    return { ok: false, message: 'endpointing must be between 100 and 5000 ms' };
  }
  const hotwords = (q.get('hotwords') ?? '').split(',').map((h) => h.trim()).filter(Boolean);
  return {
    ok: true,
    params: {
      model: served.build,
      sampleRate: rate,
      language,
      timestamps: q.get('timestamps') !== 'false',
      interim: q.get('interim_results') !== 'false',
      endpointingMs: endpointing,
      droppedHotwords: enAr ? hotwords : [],
      correlationId: q.get('correlation_id'),
    },
  };
}

/** Runs an accepted /listen socket: errors and closes as the protocol says. */
export function serveListen(ws: WebSocket, url: URL, key: KeyState | undefined, state: SandboxState): void {
  const fail = (code: number, message: string) => {
    ws.send(JSON.stringify({ type: 'Error', code, message, recoverable: false }));
    ws.close(code, closeReason(message));
  };
  if (!key) return fail(1008, 'authentication required');
  if (!key.may('/listen')) return fail(1008, 'access denied: this key cannot call /listen');
  if (!key.canSpend(1)) return fail(1008, 'insufficient wallet balance');
  const check = listenParams(url.searchParams);
  if (!check.ok) return fail(4002, check.message);
  const release = key.acquire();
  if (!release) return fail(1008, 'concurrent session limit reached');
  // A black-holed connection reads and sends nothing from some point on, and never closes.
  const blackhole = state.takeFault('listenBlackhole');
  let dark = false;
  let audioBytes = 0;
  const session = new ListenSession(
    check.params,
    {
      send: (m) => !dark && ws.readyState === ws.OPEN && ws.send(JSON.stringify(m)),
      close: (code, reason) => !dark && ws.close(code, closeReason(reason)),
    },
    state.recognizer,
    key,
    state.timing,
  );
  // Frames that arrive while the VAD loads wait in this queue.
  const early: [Buffer, boolean][] = [];
  let ready = false;
  ws.on('message', (data, binary) => {
    const buf = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
    if (dark) return;
    if (blackhole && binary && (audioBytes += buf.length) / 2 / check.params.sampleRate >= blackhole.afterAudioS) {
      dark = true;
      ws.pause();
      session.dispose();
      return;
    }
    if (!ready) return void early.push([buf, binary]);
    if (binary) session.onAudio(buf);
    else session.onControl(buf.toString('utf8'));
  });
  ws.on('close', () => {
    release();
    session.dispose();
  });
  ws.on('error', () => {});
  session
    .start()
    .then(() => {
      ready = true;
      for (const [buf, binary] of early) binary ? session.onAudio(buf) : session.onControl(buf.toString('utf8'));
    })
    .catch((err) => fail(1011, `internal error: ${(err as Error).message}`));
}
