import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

/**
 * docs/arabic.md's snippets of the turn options (`turn: { … }`, a policy wrapping
 * arabicTurnPolicy) type-check in strict TypeScript against the package's sources, as a user's
 * .ts file would: a policy declared apart from the agent has no contextual type, so without its
 * annotation strict tsc stops at TS7006 and TS2322.
 */
const ROOT = new URL('../..', import.meta.url).pathname;

test("docs/arabic.md's turn-taking snippets type-check under strict", () => {
  const page = readFileSync(join(ROOT, 'docs/arabic.md'), 'utf8');
  const section = page.slice(page.indexOf('## Turn-taking'), page.indexOf('\n## ', page.indexOf('## Turn-taking') + 3));
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/^ {2}/gm, ''));
  assert.ok(blocks.some((b) => b.includes('arabicTurnPolicy')), 'the section shows a policy wrapping arabicTurnPolicy');
  const files = new Map(blocks.map((b, i) => [
    join(ROOT, '.snippets', `turn-${i}.ts`),
    // `...,` stands for the rest of the agent; an agent is checked as `Agent` where it is one.
    `import type { Agent as __Agent } from 'hiwar';\n${b.replace(/\.\.\.,/g, '...({} as __Agent),').replace(/^const agent = /m, 'export const agent: __Agent = ')}\nexport {};\n`,
  ]));
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  assert.ok(parsed, 'tsconfig.json reads');
  const options: ts.CompilerOptions = { ...parsed.options, strict: true, noEmit: true, incremental: false, noUnusedLocals: false };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (f, language, ...rest) => (files.has(f) ? ts.createSourceFile(f, files.get(f)!, language) : getSourceFile.call(host, f, language, ...rest));
  host.fileExists = (f) => files.has(f) || fileExists.call(host, f);
  host.readFile = (f) => files.get(f) ?? readFile.call(host, f);
  const program = ts.createProgram([...files.keys()], options, host);
  const problems = [...files.keys()].flatMap((path) => {
    const file = program.getSourceFile(path)!;
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((d) => `${path.slice(ROOT.length)}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  });
  assert.deepEqual(problems, []);
});
