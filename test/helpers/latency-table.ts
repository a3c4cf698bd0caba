import assert from 'node:assert/strict';

/** What a report's agent turn carries that the table prints. */
interface ReportTurn {
  role: string;
  metrics?: Record<string, unknown>;
}

/** The table's columns that add up to voice-to-voice, in its order, with the report's names. */
const PARTS = ['endOfSpeechToFinalMs', 'turnDecisionMs', 'llmFirstTokenMs', 'llmFirstSentenceMs', 'ttsFirstAudioMs', 'playoutStartMs'] as const;

/**
 * Checks `hiwar demo`'s printed latency table against its report.json: one row per agent turn
 * with metrics, each figure the report's, and in every row with all of them the printed parts
 * add up to its voice-to-voice within their rounding (each to 0.1 ms). Returns the rows checked.
 */
export function assertLatencyTable(stdout: string, turns: ReportTurn[]): number {
  const lines = stdout.split('\n');
  const header = lines.findIndex((l) => l.startsWith('turn  '));
  assert.ok(header >= 0, `a latency table is printed:\n${stdout}`);
  assert.match(lines[header]!, /^turn +stt-final +decision +llm-1st +llm-sent +tts-1st +playout +voice-to-voice \(ms\)/);
  const rows = lines.slice(header + 1).filter((l) => /^ *\d+ /.test(l));
  const measured = turns.filter((t) => t.role === 'agent' && t.metrics);
  assert.equal(rows.length, measured.length, 'one row per agent turn with metrics');
  let complete = 0;
  rows.forEach((row, i) => {
    const cells = row.trim().split(/ +/);
    const figure = (c: string) => (c === '–' ? undefined : Number(c));
    const parts = cells.slice(1, 1 + PARTS.length).map(figure);
    const voiceToVoice = figure(cells[1 + PARTS.length]!);
    const m = measured[i]!.metrics!;
    assert.equal(cells[0], String(m.turn), `row ${i + 1} is numbered by the caller turn its figures belong to: ${row}`);
    assert.deepEqual([...parts, voiceToVoice], [...PARTS, 'voiceToVoiceMs'].map((k) => m[k] as number | undefined), `row ${i + 1} prints the report's figures: ${row}`);
    if (voiceToVoice === undefined || parts.some((p) => p === undefined)) return;
    const sum = parts.reduce((a, b) => a! + b!, 0)!;
    // Seven figures each rounded to 0.1 ms: at most 0.35 ms apart.
    assert.ok(Math.abs(sum - voiceToVoice) <= 0.35 + 1e-9, `row ${i + 1}: the parts add up to ${sum}, voice-to-voice is ${voiceToVoice}: ${row}`);
    complete++;
  });
  assert.ok(complete > 0, `at least one reply has every part measured:\n${rows.join('\n')}`);
  return complete;
}
