import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { checkOtelInstalled, OTEL_PACKAGES, startOtel, TRACING_ASKED_BY } from '../../src/observability/otel-setup.ts';
import { docPath } from '../../src/docs-path.ts';
import { installSpec, MissingDependencyError, OPTIONAL_PACKAGES, type OptionalPackage } from '../../src/optional.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { peerDependencies: Record<string, string> };

test('a range in the install line is the package.json peer range', () => {
  const ranged = Object.entries(OPTIONAL_PACKAGES).filter(([, v]) => 'range' in v);
  assert.ok(ranged.length >= 4, 'the OpenTelemetry packages carry their range');
  for (const [name, v] of ranged) assert.equal((v as { range: string }).range, pkg.peerDependencies[name], name);
});

test('the --otel install line names every package npm needs, with versions (on Node 20 a bare name ends in ERESOLVE)', () => {
  // Named with hiwar's ranges (the SDK's 2.x line, which runs on Node 20; 3.x declares Node >=
  // 22.15), so npm installs versions that fit each other and hiwar, resources included.
  assert.ok(OTEL_PACKAGES.includes('@opentelemetry/resources'));
  const line = new MissingDependencyError('@opentelemetry/sdk-trace').message;
  assert.equal(line, `Tracing (--otel) needs @opentelemetry/sdk-trace: npm install @opentelemetry/sdk-trace@${pkg.peerDependencies['@opentelemetry/sdk-trace']}; see ${docPath('docs/observability.md')}`);
  // The page it names is a file on this machine (the package ships docs/).
  assert.ok(existsSync(docPath('docs/observability.md')), docPath('docs/observability.md'));
  for (const p of OTEL_PACKAGES) assert.equal(installSpec(p), `${p}@${pkg.peerDependencies[p]}`);
});

test('a package without a range is named bare', () => {
  assert.equal(installSpec('mediasoup' as OptionalPackage), 'mediasoup');
});

test("the missing-package line names what asked for tracing: startTracing() of hiwar/server, or hiwar serve's --otel", async () => {
  const none = () => false;
  const all = OTEL_PACKAGES.map((p) => `${p}@${pkg.peerDependencies[p]}`).join(' ');
  // What `startTracing()` runs, a package missing.
  await assert.rejects(startOtel({}, { by: TRACING_ASKED_BY.startTracing, installed: none }), (err: Error) => {
    assert.equal(err.name, 'MissingDependencyError');
    assert.equal(err.message, `Tracing (startTracing() of hiwar/server) needs ${OTEL_PACKAGES.join(' and ')}: npm install ${all}; see ${docPath('docs/observability.md')}`);
    assert.doesNotMatch(err.message, /--otel/, 'no flag the user never typed');
    return true;
  });
  assert.throws(() => checkOtelInstalled(undefined, none), /^MissingDependencyError: Tracing \(--otel\) needs /, 'hiwar serve names its flag');
  assert.doesNotThrow(() => checkOtelInstalled(TRACING_ASKED_BY.startTracing), 'installed here: nothing to say');
});
