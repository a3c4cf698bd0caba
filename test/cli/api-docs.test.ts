import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Application, Logger, LogLevel, TSConfigReader, TypeDocReader } from 'typedoc';

/**
 * The API reference (`npm run docs`) as TypeDoc builds it from typedoc.json: every public export
 * has a summary and every `{@link}` resolves. One conversion, nothing written (emit none); the
 * type check is `tsc`'s job, so TypeDoc skips its own (most of its CPU otherwise).
 */
const ROOT = new URL('../..', import.meta.url).pathname;

/** Keeps what TypeDoc would print as a warning or an error, instead of printing it. */
class Collected extends Logger {
  readonly messages: string[] = [];
  override log(message: string, level: LogLevel): void {
    super.log(message, level);
    if (level >= LogLevel.Warn) this.messages.push(message);
  }
}

test('every public export of the package has a TSDoc summary, and every link in them resolves', async () => {
  const app = await Application.bootstrapWithPlugins(
    { options: join(ROOT, 'typedoc.json'), tsconfig: join(ROOT, 'tsconfig.build.json'), skipErrorChecking: true, disableSources: true },
    [new TypeDocReader(), new TSConfigReader()],
  );
  const logger = new Collected();
  app.logger = logger;
  const project = await app.convert();
  assert.ok(project, `TypeDoc could not convert the entry points:\n${logger.messages.join('\n')}`);
  app.validate(project);
  const undocumented = logger.messages
    .map((m) => m.match(/^(.+?) \((\w+)\), defined in .* does not have any documentation/))
    .filter((m) => m !== null)
    .map((m) => `${m[1]} (${m[2]})`);
  assert.deepEqual(undocumented, [], `public exports without a one-line summary (add a /** … */ above each):\n${undocumented.join('\n')}`);
  assert.deepEqual(logger.messages, [], 'TypeDoc warned about the API reference');
});
