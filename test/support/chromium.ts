import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium package; CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Why the browser suites cannot run, or undefined when they can (for requireOrSkip). */
export function chromiumUnavailable(): string | undefined {
  return existsSync(CHROMIUM_PATH)
    ? undefined
    : `Chromium is not installed at ${CHROMIUM_PATH} (apt-get install chromium)`;
}

export interface RunningChromium {
  readonly context: BrowserContext;
  /** Console errors, failed requests and uncaught exceptions of every page so far. */
  readonly problems: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * The system's motion setting the pages see: `reduce` (prefers-reduced-motion, which the Studio
 * honours with no transitions: a suite runs in half the time and CPU) or `no-preference`.
 */
export type Motion = 'reduce' | 'no-preference';

/**
 * Headless Chromium with a fresh profile in a temporary folder (removed on close), no network
 * beyond what pages ask for. Every page's console errors and uncaught exceptions are collected
 * into `problems`, so a suite can assert there were none.
 */
export async function launchChromium(
  viewport = { width: 1280, height: 800 },
  motion: Motion = 'reduce',
): Promise<RunningChromium> {
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport,
    acceptDownloads: true,
    reducedMotion: motion,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const problems: string[] = [];
  const watch = (page: Page): void => {
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${page.url()}: console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`${page.url()}: uncaught: ${error.message}`));
  };
  context.on('page', watch);
  for (const page of context.pages()) watch(page);
  return {
    context,
    problems,
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
