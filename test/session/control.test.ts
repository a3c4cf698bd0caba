import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Agent } from '../../src/session/agent.ts';
import { controlWith, type SessionControl } from '../../src/session/control.ts';

/** A control whose members record their calls, with one member beyond the control. */
class Recording implements SessionControl {
  agent = { name: 'first' } as Agent;
  calls: string[] = [];
  async say(text: string) {
    this.calls.push(`say ${text}`);
  }
  async generateReply() {
    this.calls.push('reply');
  }
  async handoff(next: Agent) {
    this.calls.push(`handoff ${next.name}`);
  }
  async runTask() {
    this.calls.push('task');
    return { ok: false as const, reason: 'no_input' as const };
  }
  async summarize() {
    return `summary of ${this.calls.length}`;
  }
  close() {}
}

test('controlWith: replaced members answer, the others reach the base (bound to it), agent read live', async () => {
  const base = new Recording();
  const c = controlWith(base, { say: async (text) => void base.calls.push(`own ${text}`) });
  await c.say('a');
  await c.generateReply();
  await c.handoff({ name: 'second' } as Agent);
  assert.deepEqual(base.calls, ['own a', 'reply', 'handoff second']);
  assert.equal(await c.summarize(), 'summary of 3');
  base.agent = { name: 'second' } as Agent;
  assert.equal(c.agent.name, 'second');
});

test('controlWith: only the members of the control show, wrapped twice too', () => {
  const c = controlWith(controlWith(new Recording(), {}), {});
  assert.deepEqual(Object.keys(c).sort(), ['agent', 'generateReply', 'handoff', 'runTask', 'say', 'summarize']);
  assert.equal('close' in c, false);
});
