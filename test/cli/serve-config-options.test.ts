/** `hiwar serve --config`: every option of `createAgentServer` is taken, and `limits` is checked. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadServeConfig } from '../../src/cli/serve-config.ts';
import { serverOptionProblem } from '../../src/server/option-checks.ts';

/** A config module as a user writes one, in a directory of its own. */
function withConfig(body: string, run: (file: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-config-options-'));
  const file = join(dir, 'hiwar.config.mjs');
  writeFileSync(file, body);
  return run(file).finally(() => rmSync(dir, { recursive: true, force: true }));
}

test('options of createAgentServer a config may set (limits, ledger, metricsText, teachSandbox, metricsToken) are taken, not refused as unknown', async () => {
  const body = `export default {
    limits: { headersTimeoutMs: 5000, keepAliveTimeoutMs: 2000 },
    ledger: { spend: async () => true, close: async () => {} },
    metricsText: async () => 'my_metric 1\\n',
    teachSandbox: async () => {},
    metricsToken: 'scrape-me',
    deferReady: true,
    serviceProbe: false,
  };\n`;
  await withConfig(body, async (file) => {
    const config = await loadServeConfig(file);
    assert.deepEqual(config.limits, { headersTimeoutMs: 5000, keepAliveTimeoutMs: 2000 });
    assert.equal(await config.metricsText!(), 'my_metric 1\n');
    assert.equal(typeof config.teachSandbox, 'function');
    assert.equal(typeof config.ledger, 'object');
    assert.equal(config.metricsToken, 'scrape-me');
  });
});

test("a misspelt limit or one that is not a whole number of milliseconds stops the start naming it (it was ignored, or went on unchecked)", async () => {
  await withConfig('export default { limits: { headerTimeoutMs: 5000 } };\n', async (file) => {
    await assert.rejects(loadServeConfig(file), /--config: .*hiwar\.config\.mjs: `limits\.headerTimeoutMs` is no limit of the server: headersTimeoutMs, requestTimeoutMs/);
  });
  await withConfig("export default { limits: { requestTimeoutMs: '15s' } };\n", async (file) => {
    await assert.rejects(loadServeConfig(file), /`limits\.requestTimeoutMs` must be a whole number of milliseconds from 1, got "15s"/);
  });
  // createAgentServer says the same, through the same check.
  assert.match(serverOptionProblem({ limits: { upgradeIdleMs: -1 } })!, /`limits\.upgradeIdleMs` must be a whole number of milliseconds from 1, got -1/);
  assert.match(serverOptionProblem({ limits: 5000 })!, /`limits` must be an object/);
  assert.equal(serverOptionProblem({ limits: { checkEveryMs: 100 } }), undefined);
});
