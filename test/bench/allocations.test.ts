/** The allocation summary reads a heap profile as V8's sampling heap profiler returns it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summarizeAllocations, type AllocationProfile } from '../../bench/allocations.ts';

const frame = (functionName: string, url: string) => ({ functionName, url });

test("bytes a second by allocating function, and by the nearest of hiwar's own functions on the stack", () => {
  const p: AllocationProfile = {
    seconds: 2,
    head: {
      callFrame: frame('(root)', ''),
      selfSize: 0,
      children: [
        {
          callFrame: frame('handle', 'file:///x/hiwar/transports/telephony/media-stream.ts'),
          selfSize: 1_000_000,
          children: [{ callFrame: frame('startLoop', '/x/hiwar/node_modules/ws/lib/receiver.js'), selfSize: 3_000_000 }],
        },
        { callFrame: frame('onStreamRead', 'node:internal/stream_base_commons'), selfSize: 4_000_000 },
      ],
    },
  };
  const s = summarizeAllocations(p, p.seconds!);
  assert.equal(s.mbPerSecond, 4);
  assert.deepEqual(
    s.self.map((r) => [r.name, r.mbPerSecond, r.pct]),
    [
      ['onStreamRead node:internal/stream_base_commons', 2, 50],
      ['startLoop ws/lib/receiver.js', 1.5, 37.5],
      ['handle transports/telephony/media-stream.ts', 0.5, 12.5],
    ],
  );
  assert.deepEqual(
    s.own.map((r) => [r.name, r.mbPerSecond]),
    [
      ['handle transports/telephony/media-stream.ts', 2],
      ['(no function of hiwar)', 2],
    ],
  );
});
