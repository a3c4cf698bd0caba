import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A code block of the README or docs/ that runs as written from a blank project. */
export interface Snippet {
  /** The file it is saved as (`app.mjs`). */
  name: string;
  /** The page that shows it (`README.md`, `docs/writing-agents.md`). */
  page: string;
  body: string;
}

/** The README and every page under docs/, as paths from the repository's root. */
export function docPages(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : [],
    );
  return ['README.md', ...walk('docs')];
}

/**
 * The runnable snippets: ```js blocks whose first line names their file and says what it is
 * (`// app.mjs: your agent, …`). test/package/installed.test.ts runs each from a blank project
 * with the packed package installed; the docs test checks that it runs every one, once.
 */
export function runnableSnippets(root: string): Snippet[] {
  return docPages(root).flatMap((page) =>
    [...readFileSync(join(root, page), 'utf8').matchAll(/```js\n\/\/ ([\w-]+\.mjs): [^\n]*\n([\s\S]*?)```/g)].map(([, name, body]) => ({ name: name!, page, body: body! })),
  );
}
