import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { packageRoot } from '../docs-path.ts';
import type { ServerPlugin } from '../server/types.ts';
import { DOCS_CSP, docsPage } from './page.ts';
import { renderPage } from './render.ts';

/** Defaults of `docsRoutes`' options, in one place. */
export const DOCS_SITE_DEFAULTS = {
  /** The path the guide is served under. */
  mount: '/docs',
  /** How long a browser may keep a page without asking again (they change with the package only). */
  maxAgeSeconds: 300,
} as const;

/** Options of `docsRoutes`. */
export interface DocsRoutesOptions {
  /** The path the guide is served under. @default '/docs' */
  mount?: string;
  /** The folder holding the package (its docs/, README.md, CHANGELOG.md). Default: this hiwar package's. */
  root?: string;
}

/**
 * The guide shipped with the package, as a server plugin: `GET <mount>/` is its contents
 * (docs/README.md), `<mount>/<page>.md` each page, `<mount>/package/README.md` and
 * `…/CHANGELOG.md` the package's own, all as HTML that reads offline. Public documentation: no
 * secret guards it, and it is off unless mounted (`hiwar serve --docs`). Only the package's own
 * Markdown files are served, each rendered once and kept.
 *
 * @example
 * const voice = await createAgentServer({ agent, plugins: [docsRoutes()] });
 */
export function docsRoutes(options: DocsRoutesOptions = {}): ServerPlugin {
  const mount = (options.mount ?? DOCS_SITE_DEFAULTS.mount).replace(/\/+$/, '');
  const root = options.root ?? packageRoot();
  let pages: Map<string, string> | undefined;
  const rendered = new Map<string, Promise<string>>();
  return {
    name: 'docs',
    async handleRequest(req, res, url) {
      if (url.pathname !== mount && !url.pathname.startsWith(`${mount}/`)) return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain; charset=utf-8', 'GET or HEAD\n', false, { Allow: 'GET, HEAD' });
      const head = req.method === 'HEAD';
      // A relative address: right behind a proxy that mounts the server under a prefix too.
      if (url.pathname === mount) return send(res, 301, 'text/plain; charset=utf-8', 'the guide is at /docs/\n', head, { Location: `${mount.slice(mount.lastIndexOf('/') + 1)}/` });
      pages ??= servedPages(root);
      const address = url.pathname.slice(mount.length + 1);
      const file = pages.get(address);
      if (!file) return send(res, 404, 'text/html; charset=utf-8', `<!doctype html><meta charset="utf-8"><title>not in the guide</title><p>No such page of the guide. <a href="${'../'.repeat(address.split('/').length - 1) || './'}">The contents</a></p>\n`, head);
      let html = rendered.get(file);
      if (!html) {
        const byFile = new Map([...pages].map(([a, f]) => [f, a] as const));
        html = readFile(join(root, file), 'utf8').then((md) => docsPage(renderPage(file, md, (p) => (byFile.get(p) === undefined ? undefined : addressOf(p))), addressOf(file)));
        html.catch(() => rendered.delete(file));
        rendered.set(file, html);
      }
      return send(res, 200, 'text/html; charset=utf-8', await html, head, { 'Cache-Control': `max-age=${DOCS_SITE_DEFAULTS.maxAgeSeconds}` });
    },
  };
}

/** The page's address under the mount: docs/README.md is the index, the package's own files are under package/. */
function addressOf(file: string): string {
  if (file === 'docs/README.md') return '';
  return file.startsWith('docs/') ? file.slice('docs/'.length) : `package/${file}`;
}

/** Address → file inside the package, for every Markdown file of docs/ (one level of folders) and the package's README and CHANGELOG. */
function servedPages(root: string): Map<string, string> {
  const files: string[] = [];
  const docs = join(root, 'docs');
  if (existsSync(docs)) {
    // stat, not the entry's own type: a linked file (the test tree links the repository's) counts.
    for (const name of readdirSync(docs)) {
      const stat = statSync(join(docs, name));
      if (stat.isFile() && name.endsWith('.md')) files.push(`docs/${name}`);
      else if (stat.isDirectory()) for (const n of readdirSync(join(docs, name))) if (n.endsWith('.md')) files.push(`docs/${name}/${n}`);
    }
  }
  for (const f of ['README.md', 'CHANGELOG.md']) if (existsSync(join(root, f))) files.push(f);
  const pages = new Map(files.map((f) => [addressOf(f), f]));
  if (pages.has('')) pages.set('README.md', 'docs/README.md');
  return pages;
}

/** Sends a whole answer with the guide's headers. */
function send(res: ServerResponse, status: number, type: string, body: string, head: boolean, headers: Record<string, string> = {}): true {
  const bytes = Buffer.from(body);
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': bytes.byteLength,
    'Content-Security-Policy': DOCS_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    ...headers,
  });
  res.end(head ? undefined : bytes);
  return true;
}
