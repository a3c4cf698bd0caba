// scripts/ts-specifiers.mjs through scripts/test-build.mjs: the compiled test tree rewrites the
// relative `.ts` specifiers of imports and exports to `.js`, and nothing else. The regular
// expression it replaced also rewrote a string or template that read like an import, so a test
// writing a user's project (`import shop from './agent.ts'`) wrote `./agent.js` in the compiled run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileModule } from '../../scripts/test-build.mjs';
import { rewriteTsSpecifiers } from '../../scripts/ts-specifiers.mjs';

const compile = async (source: string) => (await compileModule(source, '/r/m.ts', 'm.js.map')).code;

test('import and export specifiers, static and dynamic, end in .js', async () => {
  const code = await compile(
    [
      "import { a } from './a.ts';",
      "import '../side.ts';",
      "export { b } from './b.ts';",
      "export * from '../c/d.ts';",
      'export const load = () => import(',
      "  './lazy.ts'",
      ');',
      'console.log(a);',
    ].join('\n'),
  );
  for (const js of ['./a.js', '../side.js', './b.js', '../c/d.js', './lazy.js']) assert.match(code, new RegExp(`["']${js.replace(/\./g, '\\.')}["']`), js);
  assert.doesNotMatch(code, /\.ts["']/);
  assert.match(code, /\/\/# sourceMappingURL=m\.js\.map\n$/);
});

test('a .ts inside a string, a template, a comment or a regular expression stays as written', async () => {
  const source = [
    'export const config = `import shop from \'./agent.ts\';\\nexport default { agentFor: () => shop };\\n`;',
    'export const line = "import { x } from \'../../src/x.ts\';";',
    "export const nested = `${await import('./inner.ts')} from './template.ts'`;",
    "export const re = /from\\s*['\"]\\.\\/re\\.ts['\"]/;",
    "/** see import('./comment.ts') */",
    "export const after = await import('./after.ts');",
  ].join('\n');
  const code = await compile(source);
  assert.match(code, /import shop from '\.\/agent\.ts'/);
  assert.match(code, /from '\.\.\/\.\.\/src\/x\.ts'/);
  assert.match(code, /from '\.\/template\.ts'/);
  assert.match(code, /\\\.ts/, 'the regular expression keeps its .ts');
  // The import inside the template's placeholder is code, so it is rewritten; so is the one after.
  assert.match(code, /import\(["']\.\/inner\.js["']\)/);
  assert.match(code, /import\(["']\.\/after\.js["']\)/);
});

test('only relative .ts specifiers of imports change; packages, .d.ts, require and escaped names stay', () => {
  const source = [
    "import ts from 'typescript';",
    "import type { T } from './types.d.ts';",
    "const r = require('./cjs.ts');",
    "const k = obj.import('./method.ts');",
    "import x from './\\u0078.ts';",
    'declare function f(): import("./decl.ts").Foo;',
  ].join('\n');
  const out = rewriteTsSpecifiers(source);
  assert.equal(
    out,
    source.replace('"./decl.ts"', '"./decl.js"'),
  );
});
