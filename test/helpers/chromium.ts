import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium, never a downloaded one. */
export const CHROMIUM = '/usr/bin/chromium';

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fake microphone that plays `wavPath` once, a fresh profile, and no
 * network chatter of its own. Media permission is granted by the fake-UI flag. The fresh profile
 * goes through `launchPersistentContext` (Playwright refuses a --user-data-dir argument).
 */
export async function launchChromium(wavPath: string): Promise<Chromium> {
  const profile = await mkdtemp(join(tmpdir(), 'hiwar-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 900, height: 760 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${wavPath}%noloop`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      await rm(profile, { recursive: true, force: true });
    },
  };
}
