import { reviewAssets } from './bundle.ts';
import { clockTime, duration, esc, scriptJson } from './html.ts';
import { LINE_NAMES, type ReviewAnalytics, type ReviewModel } from './types.ts';

/** Where the page finds the call's audio. */
export interface CallPageOptions {
  /** The recording's URL: relative to the page (`call.wav`), a path on the server, or a `data:` URL. */
  audioSrc: string;
  /** A link back to the list of calls (served pages). */
  backLink?: string;
}

/**
 * The review page of one call as one HTML document: the stylesheet, the model and the script
 * inline, nothing fetched but the audio (itself inline when `audioSrc` is a `data:` URL), so it
 * opens from disk, offline.
 */
export async function renderCallPage(model: ReviewModel, o: CallPageOptions): Promise<string> {
  const { css, script } = await reviewAssets();
  return `<!doctype html>
<html lang="ar" dir="rtl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(model.title)}: مراجعة المكالمة</title>
<link rel="icon" href="data:,">
<style>${css}</style>
</head>
<body>
<header>
${o.backLink ? `<a href="${esc(o.backLink)}">← المكالمات</a>` : ''}
<h1 dir="auto">${esc(model.title)}</h1>
${facts(model)}
${model.clockNote ? `<p class="note" dir="ltr">${esc(model.clockNote)}</p>` : ''}
</header>
<main>
<audio id="audio" controls preload="auto" src="${esc(o.audioSrc)}"></audio>
<div class="lanes-label"><span>المتصل ▲ · الوكيل ▼</span><span dir="ltr">0:00 → ${clockTime(model.seconds)}</span></div>
<div class="scroll"><div class="timeline" id="timeline"><canvas id="wave" aria-label="waveforms: caller above, agent below"></canvas><div id="captions"></div><div id="cursor"></div></div></div>
<p class="now" id="now" dir="rtl" lang="ar" aria-live="polite"></p>
<div class="layout${model.analytics ? ' with-analytics' : ''}">
<section><h2>الحوار</h2><ol class="turns" id="turns">${model.turns.map((t) => `<li class="turn ${t.role}"><span class="when" dir="ltr">${clockTime(t.start)}</span>${t.line ? ` <span class="tag line" data-line="${esc(t.line)}">${esc(LINE_NAMES[t.line] ?? t.line)}</span>` : ''} <p class="caption" dir="rtl">${esc(t.text)}</p></li>`).join('')}</ol></section>
${model.analytics ? analyticsAside(model.analytics) : ''}
</div>
${model.notices.length ? `<h2>ملاحظات</h2><ul class="note" dir="ltr">${model.notices.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
</main>
<script type="application/json" id="call-model">${scriptJson(model)}</script>
<script>${inlineScript(script)}</script>
</body>
</html>
`;
}

/** The script as it goes inside the page's `<script>` element (what its CSP hash is taken over). */
export const inlineScript = (script: string): string => script.replace(/<\/script/gi, '<\\/script');

function facts(m: ReviewModel): string {
  const items: [string, string | undefined][] = [
    ['الوكيل', m.agent],
    ['المدة', duration(m.seconds)],
    ['النهاية', m.outcome ? `${m.outcome} (${m.ended})` : m.ended],
    ['الرد الآلي', m.amd],
    ['أبطأ رد', m.worstLatencyMs !== undefined ? `${Math.round(m.worstLatencyMs)} ms` : undefined],
    ['التاريخ', m.endedAt],
  ];
  return `<ul class="facts">${items
    .filter(([, v]) => v)
    .map(([k, v]) => `<li>${k}: <b dir="auto">${esc(v)}</b></li>`)
    .join('')}</ul>`;
}

/** The post-call analytics beside the timeline: summary, sentiment, keywords, diarized transcript. */
function analyticsAside(a: ReviewAnalytics): string {
  const sentiment = [a.sentiment.overall && `عامة: ${a.sentiment.overall}`, a.sentiment.caller && `المتصل: ${a.sentiment.caller}`, a.sentiment.agent && `الوكيل: ${a.sentiment.agent}`].filter(Boolean);
  return `<aside id="analytics"><h2>التحليل بعد المكالمة</h2>
<p dir="rtl">${esc(a.summary)}</p>
${sentiment.length ? `<p>المشاعر: ${sentiment.map((s) => esc(s as string)).join(' · ')}</p>` : ''}
${a.keywords.length ? `<p class="keywords">${a.keywords.map((k) => `<span>${esc(k)}</span>`).join('')}</p>` : ''}
${a.minutes ? `<details><summary>المحضر</summary><p dir="rtl">${esc(a.minutes)}</p></details>` : ''}
<h2>النص المفصول حسب المتحدث${a.diarization === 'ok' ? '' : ` (${esc(a.diarization)})`}</h2>
<ol>${a.turns.map((t) => `<li data-seek="${t.start}"><span class="when" dir="ltr">${clockTime(t.start)}</span> <b>${t.role === 'caller' ? 'المتصل' : t.role === 'agent' ? 'الوكيل' : '؟'}</b>${t.sentiment ? ` <span class="tag">${esc(t.sentiment)}</span>` : ''} <span dir="rtl">${esc(t.text)}</span></li>`).join('')}</ol>
</aside>`;
}
