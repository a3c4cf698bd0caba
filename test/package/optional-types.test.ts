// A project that installs hiwar without its optional packages (ioredis, bullmq, mediasoup, the
// OpenTelemetry SDK…) type-checks its use of the core entries with `tsc --strict` and the
// default `skipLibCheck: false`: no module the core entries reach imports one of them, not even
// a type (a declaration file keeps such an import, and tsc then cannot find the package).
// The two entries that are those features name their packages' types; installing.md says so.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

/** The repository, also from the compiled tree of `npm test` (its files link to the repository's). */
const ROOT = dirname(realpathSync(new URL('../../package-lock.json', import.meta.url)));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Record<string, string>>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const OPTIONAL = Object.entries(PKG.peerDependenciesMeta)
  .filter(([name, meta]) => meta.optional && name !== 'zod')
  .map(([name]) => name);

/** The entries that are an optional feature, and the optional packages whose types they name. */
const FEATURE_ENTRIES: Record<string, string[]> = { './transports/webrtc': ['mediasoup'], './analytics': ['bullmq', 'ioredis'], './campaign': ['bullmq', 'ioredis'] };

/** The optional packages imported (statically, types included) by the modules `entry` reaches through relative imports. */
function optionalImports(entry: string): string[] {
  const seen = new Set<string>();
  const found = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gms)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec);
        if (existsSync(target)) visit(target);
      } else {
        const pkg = OPTIONAL.find((o) => spec === o || spec.startsWith(`${o}/`));
        if (pkg) found.add(`${pkg} (${relative(ROOT, file)})`);
      }
    }
  };
  visit(join(ROOT, entry));
  return [...found].sort();
}

test("the core entries reach no optional package's types; the feature entries only their own", () => {
  assert.ok(OPTIONAL.includes('ioredis') && OPTIONAL.includes('mediasoup'), `the optional peers are read from package.json: ${OPTIONAL.join(', ')}`);
  for (const [name, exp] of Object.entries(PKG.exports)) {
    if (typeof exp === 'string') continue;
    const found = optionalImports(exp['hiwar-source']!);
    const allowed = FEATURE_ENTRIES[name] ?? [];
    const stray = found.filter((f) => !allowed.some((a) => f.startsWith(`${a} (`)));
    assert.deepEqual(stray, [], `${name} reaches optional packages' imports`);
  }
});
