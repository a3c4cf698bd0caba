/**
 * The phrases the server's offline recognizer knows (GET /webrtc/phrases), listed above the
 * captions: with the embedded sandbox, anything else a visitor says is never heard. The list
 * stays hidden when it is empty (the real service hears everything).
 */

/** The parts of the DOM used here, by shape: the module also type-checks (and is tested) without DOM types. */
interface Item {
  textContent: string | null;
}
interface Doc {
  createElement(tag: 'li'): Item;
}

export async function showPhrases(
  // `hidden` also takes 'until-found' in newer DOM types; children may also be strings there.
  section: { hidden: boolean | 'until-found' },
  list: { replaceChildren(...items: (Item | string)[]): void },
  doc: Doc = (globalThis as unknown as { document: Doc }).document,
): Promise<string[]> {
  const res = await fetch('/webrtc/phrases').catch(() => undefined);
  if (!res?.ok) return [];
  const { phrases } = (await res.json()) as { phrases?: unknown };
  const known = Array.isArray(phrases) ? phrases.filter((p): p is string => typeof p === 'string') : [];
  list.replaceChildren(
    ...known.map((p) => {
      const li = doc.createElement('li');
      li.textContent = p;
      return li;
    }),
  );
  section.hidden = known.length === 0;
  return known;
}
