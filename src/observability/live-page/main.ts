/**
 * The live calls page: lists the calls in progress (this instance, or the cluster) from
 * `GET /calls/live?format=json` every second, with the operator's bearer secret. The secret is
 * typed once (or given as `#secret=…`, which never reaches the server's logs) and kept for the
 * tab only. A web call can be listened to, then taken over, as a WebRTC supervisor.
 */
import type { LiveCall } from '../live-calls.ts';

const POLL_MS = 1000;
/** A turn slower than this (voice to voice) is drawn in amber. */
const SLOW_MS = 1500;
const STATES: Record<string, string> = { starting: 'يبدأ', listening: 'يستمع', thinking: 'يفكّر', speaking: 'يتحدّث', ended: 'انتهت' };

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = { status: $('status'), login: $<HTMLFormElement>('login'), secret: $<HTMLInputElement>('secret'), calls: $<HTMLUListElement>('calls'), empty: $('empty') };

function fromHash(name: string): string | undefined {
  const v = new URLSearchParams(location.hash.slice(1)).get(name);
  return v || undefined;
}

let secret = fromHash('secret') ?? sessionStorage.getItem('hiwar-calls-secret') ?? undefined;
if (location.hash) history.replaceState(null, '', location.pathname + location.search);
let timer: number | undefined;

function setStatus(text: string, error = false): void {
  ui.status.textContent = text;
  ui.status.classList.toggle('error', error);
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function duration(startedAt: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(startedAt)) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function bars(latencies: number[]): HTMLElement {
  const max = Math.max(SLOW_MS, ...latencies);
  const box = el('div', { className: 'bars', title: 'زمن الرد لكل دورة (من نهاية كلام المتصل إلى أول صوت للوكيل)' });
  for (const ms of latencies) {
    const bar = el('span', { className: ms > SLOW_MS ? 'slow' : '', title: `${Math.round(ms)} ms` });
    bar.style.height = `${Math.max(4, (ms / max) * 100)}%`;
    box.append(bar);
  }
  return box;
}

/** What the session says on its own, named: the operator sees why the call is ending. */
const FIXED_LINES: Record<string, string> = { out_of_service: 'رسالة تعذّر الخدمة', closing: 'رسالة الختام عند إيقاف الخادم', model_error: 'رسالة الاعتذار عن تعذّر الرد' };

function agentLine(c: LiveCall): HTMLElement {
  const p = el('p', { className: 'line agent', dir: 'auto', textContent: c.lastAgentLine ?? '' });
  if (c.fixedLine) {
    p.classList.add('fixed');
    p.prepend(el('span', { className: 'tag', textContent: `${FIXED_LINES[c.fixedLine] ?? c.fixedLine}: ` }));
  }
  return p;
}

/** Seconds since an ISO time, for a tool that works now. */
function secondsSince(iso: string): number {
  return Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
}

/** The tools the agent waits on now, and for how long: a slow backend shows while the caller waits. */
function toolsLine(c: LiveCall): HTMLElement {
  const p = el('p', { className: 'tools', dir: 'auto' });
  p.append(el('span', { className: 'tag', textContent: 'أداة تعمل الآن: ' }));
  c.tools!.forEach((t, i) => {
    const since = new Date(t.since).toLocaleTimeString('ar');
    p.append(...(i ? ['، '] : []), el('bdi', { dir: 'ltr', textContent: t.name }), ` منذ ${since} (${secondsSince(t.since)} ث)`);
  });
  return p;
}

/** Which part failed, in the operator's words; the message itself (clean, in English) beside it. */
const FAILURE_SOURCES: Record<string, string> = { stt: 'التعرّف على الكلام', tts: 'توليد الصوت', llm: 'النموذج', transport: 'الاتصال', agent: 'كود الوكيل' };

/** The call's failures so far and the last one: an operator sees a failing call before its caller complains. */
function failureLine(c: LiveCall): HTMLElement {
  const f = c.lastFailure!;
  const p = el('p', { className: `failure${f.fatal ? ' fatal' : ''}`, dir: 'auto' });
  p.append(el('span', { className: 'tag', textContent: `خلل (${c.failures ?? 1}) في ${FAILURE_SOURCES[f.source] ?? f.source}${f.fatal ? '، أنهى المكالمة' : ''}: ` }), el('bdi', { dir: 'ltr', textContent: f.message }));
  return p;
}

function card(c: LiveCall): HTMLLIElement {
  const state = el('span', { className: 'state', textContent: STATES[c.state] ?? c.state });
  state.dataset.state = c.state;
  const last = c.latenciesMs.at(-1);
  const li = el(
    'li',
    { className: 'call' },
    el('div', { className: 'head' }, el('strong', { textContent: c.agent ?? '—' }), state),
    el('span', { className: 'id', dir: 'ltr', textContent: `${c.provider} · ${c.callId}${c.instance ? ` · ${c.instance}` : ''}` }),
    c.lastCallerLine ? el('p', { className: 'line', dir: 'auto', textContent: c.lastCallerLine }) : el('p', { className: 'line', textContent: 'لم يتكلم المتصل بعد' }),
    ...(c.lastAgentLine ? [agentLine(c)] : []),
    ...(c.tools?.length ? [toolsLine(c)] : []),
    el(
      'div',
      { className: 'meta' },
      el('span', { textContent: `المدة ${duration(c.startedAt)}` }),
      el('span', { textContent: `الدورات ${c.turns}` }),
      el('span', { textContent: last !== undefined ? `آخر زمن رد ${Math.round(last)} ms` : 'لا زمن رد بعد' }),
      ...(c.interrupted ? [el('span', { textContent: 'قاطع المتصل الوكيل' })] : []),
    ),
    ...(c.lastFailure ? [failureLine(c)] : []),
    bars(c.latenciesMs),
  );
  li.dataset.call = c.id;
  li.dataset.state = c.state;
  if (c.room) {
    const listen = el('button', { type: 'button', textContent: 'استمع وتولَّ المكالمة' });
    listen.addEventListener('click', () => void supervise(c.room!));
    li.append(el('div', { className: 'actions' }, listen));
  } else li.append(el('span', { className: 'meta', textContent: 'ليست مكالمة ويب: الاستماع متاح لمكالمات الويب فقط' }));
  return li;
}

/** Joins a web call's room as a supervisor (hears both sides; takes over from the call page). */
async function supervise(room: string): Promise<void> {
  const webrtcSecret = sessionStorage.getItem('hiwar-webrtc-secret') ?? prompt('سر الويب (HIWAR_WEBRTC_SECRET)') ?? '';
  if (!webrtcSecret) return;
  const res = await fetch('/webrtc/token', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${webrtcSecret}` }, body: JSON.stringify({ room, role: 'supervisor' }) });
  if (!res.ok) return setStatus(`تعذّر الانضمام: ${res.status}`, true);
  sessionStorage.setItem('hiwar-webrtc-secret', webrtcSecret);
  const { joinUrl } = (await res.json()) as { joinUrl: string };
  window.open(joinUrl, '_blank', 'noopener');
}

async function refresh(): Promise<void> {
  if (!secret) return;
  let res: Response;
  try {
    res = await fetch('/calls/live?format=json', { headers: { authorization: `Bearer ${secret}`, accept: 'application/json' }, cache: 'no-store' });
  } catch {
    return setStatus('الخادم غير متاح، نعيد المحاولة…', true);
  }
  if (res.status === 401 || res.status === 403) {
    secret = undefined;
    sessionStorage.removeItem('hiwar-calls-secret');
    clearInterval(timer);
    ui.login.hidden = false;
    return setStatus(res.status === 401 ? 'السر غير صحيح' : 'العرض مغلق على هذا الخادم (HIWAR_CALLS_SECRET غير مضبوط)', true);
  }
  const body = (await res.json()) as { calls: LiveCall[]; scope: 'instance' | 'cluster' };
  ui.calls.replaceChildren(...body.calls.map(card));
  ui.empty.hidden = body.calls.length > 0;
  setStatus(`${body.calls.length} مكالمة · ${body.scope === 'cluster' ? 'كل الخوادم' : 'هذا الخادم'} · ${new Date().toLocaleTimeString('ar')}`);
}

function start(): void {
  ui.login.hidden = true;
  sessionStorage.setItem('hiwar-calls-secret', secret!);
  void refresh();
  clearInterval(timer);
  timer = window.setInterval(() => void refresh(), POLL_MS);
}

ui.login.addEventListener('submit', (e) => {
  e.preventDefault();
  secret = ui.secret.value.trim();
  if (secret) start();
});

if (secret) start();
else {
  ui.login.hidden = false;
  setStatus('أدخل السر لعرض المكالمات');
}
