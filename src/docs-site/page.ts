import { createHash } from 'node:crypto';
import { esc } from '../review/html.ts';
import { relativeAddress, type RenderedPage } from './render.ts';

/**
 * The page around a rendered guide page: no script, no web font, nothing fetched from elsewhere
 * (it reads offline). The guide is English with Arabic in it: each paragraph, item and cell takes
 * its direction from its own first letters (`unicode-bidi: plaintext`), an Arabic code span is
 * laid out as Arabic inside English, and code blocks stay left to right.
 */
export const DOCS_CSS = `
:root { color-scheme: light dark; --line: #8884; --soft: #8881; }
body { margin: 0 auto; max-width: 52rem; padding: 0 1.25rem 3rem; line-height: 1.55;
  font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Naskh Arabic", "Noto Sans Arabic", Tahoma, sans-serif; }
header { display: flex; gap: 1rem; align-items: baseline; padding: .75rem 0; border-bottom: 1px solid var(--line); }
header a { font-weight: 600; }
h1, h2, h3, h4, p, li, td, th, blockquote { unicode-bidi: plaintext; text-align: start; }
code { unicode-bidi: plaintext; font-size: .92em; background: var(--soft); padding: 0 .2em; border-radius: 3px; }
pre { direction: ltr; unicode-bidi: isolate; text-align: left; overflow-x: auto; background: var(--soft); padding: .75rem; border-radius: 4px; }
pre code { background: none; padding: 0; unicode-bidi: normal; }
table { border-collapse: collapse; display: block; overflow-x: auto; }
th, td { border: 1px solid var(--line); padding: .3rem .6rem; vertical-align: top; }
.unshipped { text-decoration: underline dotted; }
footer { margin-top: 3rem; font-size: .85em; opacity: .75; }
`;

/** The policy of every page: its one inline style by hash, nothing else loads. */
export const DOCS_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(DOCS_CSS).digest('base64')}'; img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`;

/** The whole HTML document of a page served at `address` (relative to the site's root). */
export function docsPage(page: RenderedPage, address: string): string {
  const index = relativeAddress(address, '');
  return `<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(page.title)} · hiwar</title>
<style>${DOCS_CSS}</style>
</head>
<body>
<header><a href="${esc(index)}">hiwar guide</a><span>${esc(page.title)}</span></header>
<main>
${page.html}</main>
<footer>The pages shipped with this hiwar package (its docs/ folder), served by <code>hiwar serve --docs</code>.</footer>
</body>
</html>
`;
}
