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

// Per input, the median over the rounds is its cost with the machine's noise (other processes
// taking the core) filtered out; percentiles over all calls keep the noise in.
function measure(inputs: string[], fn: (s: string) => unknown) {
  for (let i = 0; i < 20; i++) for (const s of inputs) fn(s); // warm the JIT and the regex caches
  const perInput = inputs.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    inputs.forEach((s, i) => {
      const t0 = performance.now();
      fn(s);
      perInput[i]!.push((performance.now() - t0) * 1000);
    });
  }
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  const medians = perInput.map((xs) => q(xs, 0.5));
  const all = perInput.flat();
  const chars = inputs.reduce((n, s) => n + s.length, 0) / inputs.length;
  const round = (x: number) => +x.toFixed(1);
  return {
    chunks: inputs.length, meanChars: Math.round(chars),
    typicalUs: round(medians.reduce((a, b) => a + b, 0) / medians.length), worstInputUs: round(Math.max(...medians)),
    p50Us: round(q(all, 0.5)), p90Us: round(q(all, 0.9)), p99Us: round(q(all, 0.99)),
  };
}

// Replies without numbers, as most chunks of a conversation are.
const plain = ['مرحبا بك في خدمة العملاء، كيف أستطيع مساعدتك اليوم؟', 'تم إيقاف البطاقة بنجاح ولن تقبل أي عملية جديدة.',
  'هل تود أن أحولك إلى أحد زملائي في قسم البطاقات؟', 'شكرا لتواصلك معنا، نتمنى لك يوما سعيدا.', '**مهم**: لا تشارك رمز التحقق مع أي شخص.'];

const rows = {
  plain: measure(plain, normalizeForSpeech),
  sentence: measure(sentences, normalizeForSpeech),
  longChunk: measure(long, normalizeForSpeech),
  chunkReply: measure(replies, (r) => chunkText(r, { maxChars: 80 })),
};

console.log(`normalizer and chunker cost, ${rounds} rounds (µs per call)\n`);
console.log('| input | inputs | mean chars | typical µs (mean of medians) | worst input µs (median) | p50 µs | p90 µs | p99 µs (noise) |');
console.log('|---|---|---|---|---|---|---|---|');
const label = { plain: 'normalize a sentence without numbers', sentence: 'normalize one corpus sentence', longChunk: 'normalize a 5-sentence chunk', chunkReply: 'chunk a reply (max 80)' };
for (const [k, r] of Object.entries(rows)) {
  console.log(`| ${label[k as keyof typeof label]} | ${r.chunks} | ${r.meanChars} | ${r.typicalUs} | ${r.worstInputUs} | ${r.p50Us} | ${r.p90Us} | ${r.p99Us} |`);
}
console.log(JSON.stringify({ bench: 'normalize', rounds, ...rows }));
