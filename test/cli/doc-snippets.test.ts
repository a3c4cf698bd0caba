import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { runnableSnippets } from '../helpers/snippets.ts';

/**
 * The runnable snippets of the README and docs/ (`// app.mjs: …` blocks) type-checked against the
 * package's sources, as an editor with checkJs would: a renamed export, a wrong option or a
 * missing argument fails here in seconds. test/package/installed.test.ts runs the same snippets
 * from the packed package; this test does not run them. One program, checked only in the
 * snippets (about 10 s of CPU).
 */
const ROOT = new URL('../..', import.meta.url).pathname;

test('every runnable snippet of the README and docs/ type-checks against the package', () => {
  const snippets = runnableSnippets(ROOT);
  assert.ok(snippets.length >= 3, 'the README and docs/ show runnable snippets');
  // Virtual files inside the repository, so that `hiwar` resolves to the sources (hiwar-source).
  const files = new Map(snippets.map((s) => [join(ROOT, '.snippets', s.name), s]));
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  assert.ok(parsed, 'tsconfig.json reads');
  // Plain JavaScript as a user writes it: checked, but not held to the repository's strictness.
  const options: ts.CompilerOptions = { ...parsed.options, allowJs: true, checkJs: true, noEmit: true, strict: false, noUncheckedIndexedAccess: false, incremental: false };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (f, language, ...rest) => (files.has(f) ? ts.createSourceFile(f, files.get(f)!.body, language) : getSourceFile.call(host, f, language, ...rest));
  host.fileExists = (f) => files.has(f) || fileExists.call(host, f);
  host.readFile = (f) => files.get(f)?.body ?? readFile.call(host, f);
  const program = ts.createProgram([...files.keys()], options, host);
  const problems = [...files].flatMap(([path, s]) => {
    const file = program.getSourceFile(path)!;
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((d) => {
      const { line } = file.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${s.page}: ${s.name} line ${line + 2}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
  });
  assert.deepEqual(problems, []);
});
