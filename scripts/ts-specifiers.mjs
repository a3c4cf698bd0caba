// Relative `.ts` module specifiers rewritten to `.js`, in import and export statements and
// dynamic `import()` only: the compiled test tree's modules (scripts/test-build.mjs) and the
// package's declarations (scripts/build.mjs). A regular expression over the text also rewrote
// `.ts` inside strings, template literals and comments that merely looked like an import (a
// test's own user project written from a template, `"import x from './agent.ts'"`): TypeScript's
// pre-processing scanner (`ts.preProcessFile`, the one editors use to list a file's imports)
// tokenises the text, so strings, templates, comments and regular expressions are skipped.
import ts from 'typescript';

/** What comes right before an import's or export's specifier: `from`, `import` or `import(`. */
const KEYWORD_BEFORE = /(?:^|[^\w$.])(?:from|import)\s*\(?\s*$/;
/** A specifier to rewrite: relative, ending in `.ts` (not `.d.ts`). */
const RELATIVE_TS = /^\.{1,2}\/.*(?<!\.d)\.ts$/;

/** `code` (JavaScript or declarations) with its relative `.ts` import and export specifiers ending in `.js`. */
export function rewriteTsSpecifiers(code) {
  const { importedFiles } = ts.preProcessFile(code, true, true);
  let out = '';
  let at = 0;
  for (const { fileName, pos } of importedFiles) {
    // `pos` is the opening quote's offset; a specifier written with escapes is not found as
    // listed and stays as written.
    const start = pos + 1;
    const end = start + fileName.length;
    if (!`'"`.includes(code[pos]) || code.slice(start, end) !== fileName || code[end] !== code[pos]) continue;
    // `require('./x.ts')` is listed too: it is no import statement, so it stays as written.
    if (!RELATIVE_TS.test(fileName) || !KEYWORD_BEFORE.test(code.slice(Math.max(0, pos - 40), pos))) continue;
    out += `${code.slice(at, end - '.ts'.length)}.js`;
    at = end;
  }
  return at === 0 ? code : out + code.slice(at);
}
