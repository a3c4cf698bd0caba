import { createRequire } from 'node:module';
import { posix } from 'node:path';

/**
 * The guide's Markdown as HTML for `hiwar serve --docs`, with markdown-it (CommonMark and
 * GitHub's tables): raw HTML in a page is shown as text, never run; code is escaped; a heading
 * gets GitHub's anchor, so the `page.md#section` links the docs test checks lead to it here too;
 * a link to another page the site serves is rewritten to that page's address, relative to this
 * one (the site may be mounted under a prefix); a link to a file the package does not ship is
 * left as its text.
 */

/** The part of markdown-it's token this module reads and changes. */
interface Token {
  type: string;
  tag: string;
  content: string;
  children: Token[] | null;
  attrs: [string, string][] | null;
  attrGet(name: string): string | null;
  attrSet(name: string, value: string): void;
}
interface MarkdownIt {
  parse(src: string, env: object): Token[];
  renderer: { render(tokens: Token[], options: unknown, env: object): string };
  options: unknown;
}

let md: MarkdownIt | undefined;
function markdownIt(): MarkdownIt {
  // Loaded on the first page: a server without --docs never reads it.
  const create = createRequire(import.meta.url)('markdown-it') as (preset: string, o: object) => MarkdownIt;
  return (md ??= create('default', { html: false, linkify: false, typographer: false }));
}

/** GitHub's anchor of a heading (the docs test's rule): lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Where a page of the package is served, relative to the site's root (`''` is the index). */
export type AddressOf = (packagePath: string) => string | undefined;

/** A page rendered: its first heading, for the title, and the HTML of its body. */
export interface RenderedPage {
  title: string;
  html: string;
}

/**
 * Renders the page at `packagePath` (`docs/webrtc.md`, `README.md`) whose text is `source`;
 * `addressOf` says where each page the site serves lives (undefined: not served).
 */
export function renderPage(packagePath: string, source: string, addressOf: AddressOf): RenderedPage {
  const tokens = markdownIt().parse(source, {});
  const seen = new Map<string, number>();
  let title = '';
  const here = addressOf(packagePath) ?? '';
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') {
      const text = tokens[i + 1]?.content ?? '';
      const base = headingAnchor(text);
      const n = seen.get(base);
      seen.set(base, (n ?? -1) + 1);
      token.attrSet('id', n === undefined ? base : `${base}-${n + 1}`);
      if (!title && token.tag === 'h1') title = text.replace(/`/g, '');
    }
    if (token.type === 'inline') rewriteLinks(token.children ?? [], packagePath, here, addressOf);
  });
  return { title: title || packagePath, html: markdownIt().renderer.render(tokens, markdownIt().options, {}) };
}

function rewriteLinks(children: Token[], packagePath: string, here: string, addressOf: AddressOf): void {
  const open: Token[] = [];
  for (const t of children) {
    if (t.type === 'link_open') {
      open.push(t);
      const href = t.attrGet('href') ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) t.attrSet('rel', 'noopener noreferrer');
      else if (!href.startsWith('#')) {
        const [path, anchor] = href.split('#');
        const target = addressOf(posix.normalize(posix.join(posix.dirname(packagePath), safeDecode(path!))));
        if (target === undefined) {
          // A file of the repository the package does not ship: its name stays, as text.
          t.tag = 'span';
          t.attrs = [['class', 'unshipped'], ['title', `${path} is in the repository, not in the package`]];
        } else t.attrSet('href', `${relativeAddress(here, target)}${anchor ? `#${anchor}` : ''}`);
      }
    } else if (t.type === 'link_close') {
      const o = open.pop();
      if (o) t.tag = o.tag;
    }
  }
}

function safeDecode(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/** The address of `to` as a link from the page at `from` (both relative to the site's root; `''` and `x/` are folders). */
export function relativeAddress(from: string, to: string): string {
  const dir = from.endsWith('/') || from === '' ? `/${from}` : posix.dirname(`/${from}`);
  const rel = posix.relative(dir, `/${to}`);
  const folder = to === '' || to.endsWith('/');
  if (!rel) return './';
  return folder ? `${rel}/` : rel;
}
