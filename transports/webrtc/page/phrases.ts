/**
 * The phrases the server's offline recognizer knows (GET /webrtc/phrases), listed above the
 * captions: with the embedded sandbox, anything else a visitor says is never heard. The list
 * stays hidden when it is empty (the real service hears everything).
 */
export async function showPhrases(section: HTMLElement, list: HTMLElement): Promise<string[]> {
  const res = await fetch('/webrtc/phrases').catch(() => undefined);
  if (!res?.ok) return [];
  const { phrases } = (await res.json()) as { phrases?: unknown };
  const known = Array.isArray(phrases) ? phrases.filter((p): p is string => typeof p === 'string') : [];
  list.replaceChildren(
    ...known.map((p) => {
      const li = document.createElement('li');
      li.textContent = p;
      return li;
    }),
  );
  section.hidden = known.length === 0;
  return known;
}
