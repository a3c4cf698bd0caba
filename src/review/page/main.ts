// The call review page's script: draws the model the page carries (a <script type=
// "application/json"> element) as a timeline of both waveforms, the turns' captions on it, the
// transcript with heard against meant, latency bars and markers; clicking a turn plays it.
import { clockTime, esc } from '../html.ts';
import { LATENCY_PARTS, LINE_NAMES, type ReviewModel, type ReviewTurn } from '../types.ts';

/** Pixels per second of timeline: a three-second turn's caption is readable, and a call scrolls. */
const PX_PER_SECOND = 28;
/** Canvas width limit (browsers refuse wider canvases). */
const MAX_CANVAS_PX = 16_000;
/** Arabic names of the latency parts, in the page's language. */
const PART_NAMES: Record<(typeof LATENCY_PARTS)[number], string> = {
  recognition: 'التعرّف',
  decision: 'القرار',
  model: 'النموذج',
  synthesis: 'التوليد الصوتي',
  playout: 'التشغيل',
};

const model = JSON.parse(document.getElementById('call-model')!.textContent!) as ReviewModel;
const audio = document.getElementById('audio') as HTMLAudioElement;
const timeline = document.getElementById('timeline')!;
const canvas = document.getElementById('wave') as HTMLCanvasElement;
const cursor = document.getElementById('cursor')!;
const list = document.getElementById('turns')!;
const now = document.getElementById('now')!;

const width = () => Math.min(MAX_CANVAS_PX, Math.max(timeline.parentElement!.clientWidth, Math.ceil(model.seconds * PX_PER_SECOND)));
const xOf = (t: number) => (model.seconds ? (t / model.seconds) * width() : 0);

/** Both sides' waveforms on one time axis: the caller above the middle line, the agent below. */
function drawWaveform(): void {
  const w = width();
  const h = canvas.clientHeight || 120;
  const ratio = window.devicePixelRatio || 1;
  timeline.style.width = `${w}px`;
  canvas.width = Math.round(w * ratio);
  canvas.height = Math.round(h * ratio);
  const g = canvas.getContext('2d')!;
  g.scale(ratio, ratio);
  g.clearRect(0, 0, w, h);
  const lane = h / 2;
  const side = (peaks: number[], top: number, colour: string) => {
    g.fillStyle = colour;
    const per = model.waveform.perSecond;
    for (let i = 0; i < peaks.length; i++) {
      const x = xOf(i / per);
      const bar = Math.max(0.5, peaks[i]! * (lane - 6));
      g.fillRect(x, top + lane / 2 - bar / 2, Math.max(1, xOf(1 / per)), bar);
    }
  };
  side(model.waveform.caller, 0, '#0b5cab');
  side(model.waveform.agent, lane, '#0f7b4d');
  g.fillStyle = '#c9ced8';
  g.fillRect(0, lane, w, 1);
}

/** Each turn as a caption block on the timeline at its time, in its side's lane. */
function placeCaptions(): void {
  const lanes = document.getElementById('captions')!;
  lanes.replaceChildren();
  for (const t of model.turns) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `cap ${t.role}${t.interrupted ? ' cut' : ''}${t.line ? ' line' : ''}`;
    b.dir = 'rtl';
    b.lang = 'ar';
    b.textContent = t.role === 'agent' ? (t.heard ?? t.text) : t.text;
    b.title = `${clockTime(t.start)}${t.line ? ` [${LINE_NAMES[t.line] ?? t.line}]` : ''} ${t.text}`;
    b.style.left = `${xOf(t.start)}px`;
    b.style.width = `${Math.max(24, xOf(t.end) - xOf(t.start))}px`;
    b.dataset.turn = String(t.index);
    b.addEventListener('click', () => play(t));
    lanes.append(b);
  }
  for (const m of model.markers) {
    const d = document.createElement('span');
    d.className = `marker ${m.kind}${m.failed ? ' failed' : ''}`;
    d.style.left = `${xOf(m.at)}px`;
    d.title = `${m.kind}: ${m.label} (${clockTime(m.at)})`;
    d.textContent = m.kind === 'tool' ? '⚙' : m.kind === 'handoff' ? '⇄' : '☑';
    lanes.append(d);
  }
}

/** The transcript: one card per turn, heard against meant on cut replies, latency bars. */
function renderTurns(): void {
  const worst = Math.max(1, ...model.turns.map((t) => t.latency?.totalMs ?? 0));
  list.innerHTML = model.turns.map((t) => turnCard(t, worst)).join('');
  for (const el of list.querySelectorAll<HTMLElement>('[data-turn]')) {
    const turn = model.turns[Number(el.dataset.turn)]!;
    el.addEventListener('click', () => play(turn));
    el.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      e.preventDefault();
      play(turn);
    });
  }
}

function turnCard(t: ReviewTurn, worst: number): string {
  const who = t.role === 'user' ? 'المتصل' : `الوكيل${t.agent && t.agent !== model.agent ? ` (${esc(t.agent)})` : ''}`;
  const text =
    t.role === 'agent' && t.interrupted
      ? `<span class="heard" title="ما سمعه المتصل">${esc(t.heard)}</span>${t.unheard ? ` <del class="unheard" title="ما لم يسمعه المتصل">${esc(t.unheard)}</del>` : ''} <span class="tag">قوطع</span>`
      : esc(t.text);
  return `<li class="turn ${t.role}${t.line ? ' line' : ''}" data-turn="${t.index}" tabindex="0">
  <span class="when" dir="ltr">${clockTime(t.start)}</span> <b class="who">${who}</b>${lineTag(t)}${t.task ? ` <span class="tag">${esc(t.task)}</span>` : ''}
  <p class="caption" dir="rtl" lang="ar">${text}</p>${t.latency ? latencyBar(t.latency, worst) : ''}</li>`;
}

/** A line that is not the model's words, named: a reviewer tells the greeting or an out-of-service line from a reply. */
function lineTag(t: ReviewTurn): string {
  return t.line ? ` <span class="tag line" data-line="${esc(t.line)}" title="ليس من كلام النموذج">${esc(LINE_NAMES[t.line] ?? t.line)}</span>` : '';
}

function latencyBar(l: NonNullable<ReviewTurn['latency']>, worst: number): string {
  const parts = l.parts.map((p) => `<span class="part ${p.part}" style="width:${((p.ms / worst) * 100).toFixed(2)}%" title="${PART_NAMES[p.part]} ${Math.round(p.ms)} ms"></span>`).join('');
  const legend = l.parts.map((p) => `<span class="key ${p.part}">${PART_NAMES[p.part]} ${Math.round(p.ms)}</span>`).join(' ');
  return `<div class="latency"><div class="bar" dir="ltr">${parts}</div><small><bdi dir="ltr">${Math.round(l.totalMs)} ms</bdi>: ${legend}</small></div>`;
}

/** Plays the recording from a turn's start (a click is a user gesture: playing is allowed). */
function play(t: ReviewTurn): void {
  audio.currentTime = t.start;
  audio.play().catch(() => {
    // Playing may be refused (no audio device); the seek stands and the cursor shows it.
  });
  follow();
}

/** Moves the cursor, marks the turn being played and shows its caption large. */
function follow(): void {
  const t = audio.currentTime;
  cursor.style.left = `${xOf(t)}px`;
  // The timeline scrolls on a narrow screen: keep the cursor in view.
  const view = timeline.parentElement!;
  if (xOf(t) < view.scrollLeft || xOf(t) > view.scrollLeft + view.clientWidth - 20) view.scrollLeft = Math.max(0, xOf(t) - view.clientWidth / 3);
  const current = model.turns.filter((x) => x.start <= t + 0.05 && t <= x.end + 0.3).at(-1);
  for (const el of document.querySelectorAll<HTMLElement>('.active')) el.classList.remove('active');
  if (current) {
    for (const el of document.querySelectorAll<HTMLElement>(`[data-turn="${current.index}"]`)) el.classList.add('active');
    now.textContent = current.role === 'agent' ? (current.heard ?? current.text) : current.text;
    now.className = `now ${current.role}`;
  }
}

function tick(): void {
  follow();
  if (!audio.paused) requestAnimationFrame(tick);
}

audio.addEventListener('play', () => requestAnimationFrame(tick));
audio.addEventListener('seeked', follow);
audio.addEventListener('timeupdate', follow);
timeline.addEventListener('click', (e) => {
  if ((e.target as HTMLElement).closest('.cap')) return;
  const box = timeline.getBoundingClientRect();
  audio.currentTime = ((e.clientX - box.left) / box.width) * model.seconds;
  follow();
});
for (const el of document.querySelectorAll<HTMLElement>('[data-seek]')) {
  el.addEventListener('click', () => {
    audio.currentTime = Number(el.dataset.seek);
    audio.play().catch(() => {});
  });
}

drawWaveform();
placeCaptions();
renderTurns();
let resized: number | undefined;
window.addEventListener('resize', () => {
  clearTimeout(resized);
  resized = window.setTimeout(() => {
    drawWaveform();
    placeCaptions();
    follow();
  }, 100);
});
document.body.dataset.ready = 'true';
