/**
 * What the speech normalizer costs per reply chunk (it runs on every chunk before synthesis),
 * on the corpus of agent sentences in test/text/corpus.ts, one sentence per chunk, and on
 * chunks of several sentences as the chunker emits them for long replies. Also the chunker's
 * cost per reply.
 * Usage: npx tsx bench/normalize.ts [rounds=200]
 * The last line is one JSON object of the figures.
 */
import { performance } from 'node:perf_hooks';
import { chunkText } from '../src/text/chunker.ts';
import { normalizeForSpeech } from '../src/text/normalize.ts';
import { CORPUS } from '../test/text/corpus.ts';

const rounds = Number(process.argv[2] ?? 200);
const sentences = Object.values(CORPUS).flat().map(([input]) => input);
// Long chunks: five corpus sentences joined, about the 250-character maximum of the chunker.
const long = Array.from({ length: Math.ceil(sentences.length / 5) }, (_, i) => sentences.slice(i * 5, i * 5 + 5).join(' '));
const replies = long.map((l) => l.replace(/\./g, '،'));

function measure(inputs: string[], fn: (s: string) => unknown) {
  for (let i = 0; i < 20; i++) for (const s of inputs) fn(s); // warm the JIT and the regex caches
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const s of inputs) {
      const t0 = performance.now();
      fn(s);
      times.push((performance.now() - t0) * 1000);
    }
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  const chars = inputs.reduce((n, s) => n + s.length, 0) / inputs.length;
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return { chunks: inputs.length, meanChars: Math.round(chars), meanUs: +mean.toFixed(1), p50Us: +at(0.5).toFixed(1), p99Us: +at(0.99).toFixed(1), maxUs: +at(1).toFixed(1) };
}

const rows = {
  sentence: measure(sentences, normalizeForSpeech),
  longChunk: measure(long, normalizeForSpeech),
  chunkReply: measure(replies, (r) => chunkText(r, { maxChars: 80 })),
};

console.log(`normalizer and chunker cost, ${rounds} rounds (µs per call)\n`);
console.log('| input | calls/round | mean chars | mean µs | p50 µs | p99 µs | max µs |');
console.log('|---|---|---|---|---|---|---|');
const label = { sentence: 'normalize one sentence', longChunk: 'normalize a 5-sentence chunk', chunkReply: 'chunk a reply (max 80)' };
for (const [k, r] of Object.entries(rows)) {
  console.log(`| ${label[k as keyof typeof label]} | ${r.chunks} | ${r.meanChars} | ${r.meanUs} | ${r.p50Us} | ${r.p99Us} | ${r.maxUs} |`);
}
console.log(JSON.stringify({ bench: 'normalize', rounds, ...rows }));
