import type { Locator, Page } from 'playwright-core';
import { chromiumUnavailable, type Motion } from './chromium.js';
import { ensureConsoleBuilt } from './console-build.js';
import { freePort } from './ports.js';
import { describeEachDatabase, type ServerContext } from './server.js';
import { DATABASE_TARGETS, requireOrSkip, type DatabaseTarget } from './services.js';
import { StudioBrowser } from './studio-browser.js';

/** Something a suite runs beside its server and browser (an SMTP inbox, a webhook receiver). */
export interface SuiteService {
  start(): Promise<unknown>;
  stop(): Promise<unknown>;
}

/**
 * The database a Studio suite runs on: one per suite, the suites shared between the embedded
 * one and a server one. The Studio only speaks HTTP; how each database stores what it asks for
 * is the API's, which the API suites prove on all three.
 */
type StudioDatabase = 'sqlite' | 'postgres';

interface StudioSuiteOptions {
  readonly database: StudioDatabase;
  readonly viewport?: { width: number; height: number };
  readonly services?: readonly SuiteService[];
  /**
   * The motion the pages are shown with: reduced by default (no transitions: faster, and what a
   * reader who asks for it gets); one suite keeps the transitions most readers see.
   */
  readonly motion?: Motion;
}

/** A server's environment for the Studio over plain HTTP on `port` (a refresh cookie without Secure). */
export const studioServerEnv = (port: number): Record<string, string> => ({
  PORT: String(port),
  PUBLIC_URL: `http://127.0.0.1:${String(port)}`,
  REFRESH_TOKEN_COOKIE_SECURE: 'false',
});

/**
 * What every Studio browser suite sets up, registered in the `describe` that calls `studioSuite`:
 * Chromium on a fresh profile (skipped with the reason when there is none), the console built
 * when stale, a free port for the server, the suite's `services` started alongside and stopped
 * after, and after each test the page's requests answered before its problems are read (a passed
 * test left none; a failed one leaves a screenshot). `onDatabase` declares the tests on the
 * suite's database with the Studio's server environment, leaving the pages before the server
 * stops (a page polling a closed port would log refusals into the next suite).
 */
export class StudioSuite {
  private opened: StudioBrowser | undefined;
  /** The port of the server, chosen before the suite starts. */
  port = 0;

  constructor(
    readonly name: string,
    private readonly options: StudioSuiteOptions,
  ) {}

  /** The suite's database (`create()` makes another one, for a second server). */
  get target(): DatabaseTarget {
    const target = DATABASE_TARGETS.find((t) => t.dialect === this.options.database);
    if (target === undefined) throw new Error(`no database target ${this.options.database}`);
    return target;
  }

  /** The suite's browser; throws outside its tests (Chromium not started). */
  readonly browser = (): StudioBrowser => {
    if (this.opened === undefined) throw new Error('Chromium not started');
    return this.opened;
  };

  /** The browser's page (assign it in a `before` of the suite: it exists once the suite started). */
  get page(): Page {
    return this.browser().page;
  }

  /** http://127.0.0.1:<port><path>, on the suite's server. */
  readonly url = (path: string): string => `http://127.0.0.1:${String(this.port)}${path}`;
  readonly shot = (name: string, page?: Page): Promise<Buffer> => this.browser().shot(name, page);
  readonly expectAccessible = (name: string, page?: Page): Promise<void> => this.browser().expectAccessible(name, page);
  readonly main = () => this.browser().main();
  readonly nav = () => this.browser().nav();
  readonly helperOf = (input: Locator): Promise<Locator> => this.browser().helperOf(input);
  readonly valueShown = (input: Locator, value: string): Promise<void> => this.browser().valueShown(input, value);
  readonly isFocused = (target: Locator): Promise<boolean> => this.browser().isFocused(target);
  readonly focused = (): Promise<string> => this.browser().focused();
  readonly tabTo = (target: Locator, back?: boolean): Promise<void> => this.browser().tabTo(target, back);
  readonly dialogTransition = (): Promise<string> => this.browser().dialogTransition();
  readonly navCountShown = (collection: string, count: string): Promise<void> =>
    this.browser().navCountShown(collection, count);
  readonly withRefusal = (status: number, action: () => Promise<void>): Promise<void> =>
    this.browser().withRefusal(status, action);

  /** The server environment of the Studio over plain HTTP on the suite's port, plus `extra`. */
  env(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
    return { ...studioServerEnv(this.port), ...extra };
  }

  /**
   * describeEachDatabase on the suite's database with `env()` and `extraEnv` (a function: called
   * when the server starts), leaving the pages (and `alsoLeave`'s) before the server stops.
   */
  onDatabase(
    title: string,
    body: (ctx: () => ServerContext) => void,
    options: {
      extraEnv?: () => Readonly<Record<string, string>>;
      alsoLeave?: () => StudioBrowser | undefined;
    } = {},
  ): void {
    describeEachDatabase(title, body, {
      targets: [this.target],
      beforeStop: async () => {
        await this.opened?.leave();
        await options.alsoLeave?.()?.leave();
      },
      env: () => this.env(options.extraEnv?.()),
    });
  }

  /** Registers the suite's hooks in the calling describe (studioSuite does). */
  register(): this {
    const services = this.options.services ?? [];
    const start = async () => {
      this.port = await freePort();
      await Promise.all([ensureConsoleBuilt(), ...services.map((s) => s.start())]);
      this.opened = await StudioBrowser.open(this.name, this.options.viewport, this.options.motion);
    };
    // A function, not an arrow: the skip needs the hook's own `this`.
    before(async function () {
      requireOrSkip(this, chromiumUnavailable());
      await start();
    });
    after(async () => {
      await this.opened?.close();
      await Promise.all(services.map((s) => s.stop()));
    });
    const opened = () => this.opened;
    afterEach(async function () {
      await opened()?.afterEach(this.currentTest);
    });
    return this;
  }
}

/**
 * Registers a Studio suite's setup in the calling `describe` (see StudioSuite) and answers what
 * its tests use: `browser()`, `page`, `url()`, `shot()`, `expectAccessible()`, `onDatabase()`.
 * `name` is the screenshots' folder.
 */
export function studioSuite(name: string, options: StudioSuiteOptions): StudioSuite {
  return new StudioSuite(name, options).register();
}
