import assert from 'node:assert/strict';
import { test } from 'node:test';

/**
 * The call page's list of what the offline recognizer knows (page/phrases.ts), on a minimal DOM:
 * the server's answer to GET /webrtc/phrases becomes the list, shown only when it has phrases.
 * (The route itself is part of the WebRTC plugin and goes with its end-to-end tests.)
 */
test('the call page lists the phrases the server reports, and hides the list when there are none', async () => {
  const g = globalThis as unknown as { fetch: typeof fetch };
  const realFetch = g.fetch;
  const asked: string[] = [];
  let answer: unknown = { phrases: ['أين طلبي', 7, 'متى تفتحون'] };
  const doc = { createElement: (tag: string) => ({ tag, textContent: '' as string | null }) };
  g.fetch = (async (url: string) => {
    asked.push(url);
    return new Response(JSON.stringify(answer), { headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  try {
    const { showPhrases } = await import('../../transports/webrtc/page/phrases.ts');
    const section = { hidden: true };
    const list = {
      items: [] as { textContent: string | null }[],
      replaceChildren(...items: { textContent: string | null }[]) {
        this.items = items;
      },
    };
    const shown = await showPhrases(section, list, doc);
    assert.deepEqual(asked, ['/webrtc/phrases']);
    assert.deepEqual(shown, ['أين طلبي', 'متى تفتحون'], 'strings only');
    assert.deepEqual(list.items.map((i) => i.textContent), ['أين طلبي', 'متى تفتحون']);
    assert.equal(section.hidden, false);

    answer = { phrases: [] }; // the real service: nothing to list
    assert.deepEqual(await showPhrases(section, list, doc), []);
    assert.equal(section.hidden, true);
    assert.deepEqual(list.items, []);
  } finally {
    g.fetch = realFetch;
  }
});
