import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;

/**
 * A user's project outside the repository, as after `npm install hiwar zod` (and tsx): its own
 * node_modules (zod, tsx, and hiwar linked to this checkout) and, unless asked otherwise,
 * "type": "module". `files` are written into it (paths relative to it).
 */
export function userProject(files: Record<string, string> = {}, type: 'module' | 'commonjs' = 'module'): string {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-user-'));
  mkdirSync(join(dir, 'node_modules'));
  for (const pkg of ['zod', 'tsx']) symlinkSync(realpathSync(join(ROOT, 'node_modules', pkg)), join(dir, 'node_modules', pkg), 'dir');
  symlinkSync(realpathSync(ROOT), join(dir, 'node_modules/hiwar'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-agents', private: true, ...(type === 'module' ? { type } : {}) }));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** A small agent as a user writes it: imports zod and hiwar, one tool, one intent. */
export const SHOP_AGENT = `import { z } from 'zod';
import { defineTool, type Agent } from 'hiwar';

const agent: Agent = {
  name: 'shop',
  instructions: 'متجر ورد',
  greeting: 'أهلًا بك في متجر الورد.',
  voice: { voice_id: 'ar-hijazi-female-1' },
  outOfServiceLine: 'الخدمة غير متاحة.',
  tools: [defineTool({ name: 'order_status', description: 'Where an order is', parameters: z.object({ order: z.string() }), execute: ({ order }) => ({ order, status: 'shipped' }) })],
  intents: [{ name: 'status', examples: ['أين طلبي'], tool: { name: 'order_status', args: () => ({ order: 'A-17' }) }, reply: 'طلبك في الطريق.' }],
};
export default agent;
`;
