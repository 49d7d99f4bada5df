import { expect } from 'chai';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page, Request } from 'playwright-core';
import { launchChromium, type Motion, type RunningChromium } from './chromium.js';

/** axe-core's browser build, evaluated in the page (CDP evaluation: the page's CSP does not apply). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Waits for the page's running transitions and finite animations to end (a spinner never does). */
const settled = (page: Page): Promise<unknown> =>
  page.evaluate(
    'Promise.all(document.getAnimations().filter((a) => a.effect?.getComputedTiming().endTime !== Infinity).map((a) => a.finished.catch(() => undefined)))',
  );

/** How many key presses reach any control of a page (the navigation is long on a wide screen). */
const MAX_PRESSES = 80;

/**
 * The path of `collection`'s list as its defaults show it (no filter or search, by key, first
 * page), whatever view the signed-in user had there last: a URL with its own list parameters
 * wins over the last view.
 */
export const defaultList = (collection: string): string =>
  `/admin/content/${collection}?filter=%7B%7D&order=ASC&page=1&sort=id`;

/** Where every Studio suite saves its screenshots, one folder per suite. */
export const SCREENSHOTS = join(tmpdir(), 'svc-console-screenshots');

/**
 * One Chromium with one page on the Studio, and what each browser suite asserts with: the page's
 * problems (console errors, uncaught exceptions), axe-core's serious and critical violations, and
 * screenshots under SCREENSHOTS/<suite>. Open it in `before`, close it in `after`.
 */
export class StudioBrowser {
  /** Every page's HTTP requests not yet answered (a WebSocket is not one). */
  private readonly inFlight = new Set<Request>();

  private constructor(
    readonly chromium: RunningChromium,
    readonly page: Page,
    readonly shots: string,
  ) {
    const { context } = chromium;
    context.on('request', (request) => this.inFlight.add(request));
    context.on('requestfinished', (request) => this.inFlight.delete(request));
    context.on('requestfailed', (request) => this.inFlight.delete(request));
  }

  /**
   * Waits until no request of the pages is left unanswered (up to `limitMs`): what a test made
   * the Studio ask has been answered, and any refusal logged, before its problems are read.
   */
  async requestsDone(limitMs = 10_000): Promise<void> {
    for (let waited = 0; this.inFlight.size > 0 && waited < limitMs; waited += 50) await this.page.waitForTimeout(50);
  }

  static async open(
    suite: string,
    viewport?: { width: number; height: number },
    motion?: Motion,
  ): Promise<StudioBrowser> {
    const shots = join(SCREENSHOTS, suite);
    rmSync(shots, { recursive: true, force: true });
    mkdirSync(shots, { recursive: true });
    const chromium = await launchChromium(viewport, motion);
    const page = await chromium.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    return new StudioBrowser(chromium, page, shots);
  }

  /** Leaves the Studio (a blank page): nothing of it polls a server about to stop. */
  async leave(): Promise<void> {
    for (const page of this.chromium.context.pages()) await page.goto('about:blank');
  }

  async close(): Promise<void> {
    await this.chromium.close();
    console.log(`      screenshots: ${this.shots}`);
  }

  /** A screenshot of the page once its transitions have ended (a dialog fading in, a bar filling). */
  async shot(name: string, page: Page = this.page): Promise<Buffer> {
    await settled(page);
    // Taken from the top: the fixed app bar would show where the page is scrolled to, over its middle.
    const [x, y] = await page.evaluate<[number, number]>('[scrollX, scrollY]');
    await page.evaluate('scrollTo(0, 0)');
    try {
      return await page.screenshot({ path: join(this.shots, `${name}.png`), fullPage: true });
    } finally {
      await page.evaluate(`scrollTo(${String(x)}, ${String(y)})`);
    }
  }

  /** Problems (console errors, exceptions) so far, except `expected` ones; then forgets them. */
  takeProblems(expected: RegExp[] = []): string[] {
    return this.chromium.problems.splice(0).filter((p) => !expected.some((e) => e.test(p)));
  }

  /** For afterEach: a passed test left no problem; a failed one leaves a screenshot. */
  async afterEach(test: Mocha.Test | undefined): Promise<void> {
    await this.requestsDone();
    if (test?.state === 'passed') expect(this.takeProblems()).to.deep.equal([]);
    else await this.shot(`failed-${(test?.title ?? '').slice(0, 40).replace(/\W+/g, '-')}`);
  }

  /**
   * Runs `action`, which makes the page get an HTTP error `status` on purpose (Chromium logs
   * each as a console error), waits for that log line, and asserts it was the only problem.
   */
  async withRefusal(status: number, action: () => Promise<void>): Promise<void> {
    const logged = this.page.waitForEvent('console', (m) => m.text().includes(`status of ${status}`));
    await action();
    await logged;
    expect(this.takeProblems([new RegExp(`status of ${status}`)])).to.deep.equal([]);
  }

  /**
   * axe-core in the page: no serious or critical violation. It waits for running transitions
   * first: a notification fading in has, for a moment, the contrast of a half-transparent one.
   */
  async expectAccessible(name: string, page: Page = this.page): Promise<void> {
    await settled(page);
    await page.evaluate(AXE_SOURCE);
    const result = (await page.evaluate(
      `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.help + ' (' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ') + ')'))`,
    )) as string[];
    expect(result, name).to.deep.equal([]);
  }

  /** react-admin's `main` (it holds the navigation too). */
  main(page: Page = this.page): Locator {
    return page.locator('#main-content');
  }

  nav(page: Page = this.page): Locator {
    return page.getByRole('navigation', { name: 'Main' });
  }

  /**
   * Waits until the navigation's link to `collection` is described by `count` ("3 items"): the
   * count beside its name, which the link's name leaves out.
   */
  async navCountShown(collection: string, count: string): Promise<void> {
    const link = this.nav().getByRole('link', { name: collection, exact: true });
    await link.and(this.page.locator('[aria-describedby]')).waitFor();
    const id = (await link.getAttribute('aria-describedby')) ?? '';
    await this.page
      .locator(`[id="${id}"]`)
      .filter({ hasText: new RegExp(`^${count}$`) })
      .waitFor({ state: 'attached' });
  }

  /** The transition durations of the open dialog (MUI sets them as it fades in): "0s" without motion. */
  dialogTransition(): Promise<string> {
    return this.page.evaluate(
      `getComputedStyle(document.querySelector('[role="presentation"] .MuiDialog-container')).transitionDuration`,
    );
  }

  /** The helper text under an MUI input (where react-admin puts the field's error). */
  async helperOf(input: Locator): Promise<Locator> {
    return this.page.locator(`[id="${(await input.getAttribute('id')) ?? ''}-helper-text"]`);
  }

  /**
   * Waits until `done()` holds, asking every 100 ms for as long as Playwright waits for an element
   * (30 s by the clock, however slow each question is): a busy machine is slower, not red.
   */
  async until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!(await done())) {
      expect(Date.now(), what).to.be.below(deadline);
      await this.page.waitForTimeout(100);
    }
  }

  /** Waits until `input` shows `value` (a form fills in once its record has loaded). */
  valueShown(input: Locator, value: string): Promise<void> {
    return this.until(async () => (await input.inputValue()) === value, `${value} never shown`);
  }

  /** Whether `target` has the focus. */
  isFocused(target: Locator): Promise<boolean> {
    return target.evaluate((el) => el === (el.ownerDocument as unknown as { activeElement: unknown }).activeElement);
  }

  /** What has the focus, for failure messages: its tag, role and name. */
  focused(page: Page = this.page): Promise<string> {
    return page.evaluate(
      `(() => { const e = document.activeElement; return e === null ? 'nothing' : e.tagName + ' ' + (e.getAttribute('role') ?? '') + ' "' + (e.getAttribute('aria-label') ?? e.textContent ?? '').trim().slice(0, 40) + '"'; })()`,
    );
  }

  /**
   * Presses Tab (Shift+Tab with `back`) until `target` has the focus, and checks the focus is
   * shown there (`:focus-visible` with an outline, MUI's focus-visible class or a focused field).
   */
  async tabTo(target: Locator, back = false, page: Page = this.page): Promise<void> {
    await target.waitFor();
    for (let presses = 0; !(await this.isFocused(target)); presses++) {
      expect(presses, `Tab never reached the target; the focus is on ${await this.focused(page)}`).to.be.below(
        MAX_PRESSES,
      );
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    }
    // Browser code as text: the test files are type-checked without the DOM library.
    const shown = await page.evaluate(
      `(() => { const el = document.activeElement; const style = getComputedStyle(el); return el.matches(':focus-visible') && ((style.outlineStyle !== 'none' && style.outlineWidth !== '0px') || el.classList.contains('Mui-focusVisible') || el.closest('.Mui-focused') !== null); })()`,
    );
    expect(shown, `no visible focus on ${await this.focused(page)}`).to.equal(true);
  }

  /** Opens the combobox (an MUI select) `label`, inside `scope`, and picks its option `option`. */
  async pick(label: string | RegExp, option: string, scope: Locator = this.page.locator('body')): Promise<void> {
    await scope.getByRole('combobox', { name: label }).click();
    await this.page.getByRole('option', { name: option, exact: true }).click();
  }

  /**
   * The data model's plan dialog: waits until it lists each of `expected` (nothing has run yet)
   * and answers its button that applies them.
   */
  async planLists(expected: readonly RegExp[], button = 'Apply'): Promise<Locator> {
    const dialog = this.page.getByRole('dialog', { name: 'Changes to apply' });
    await dialog.waitFor();
    for (const line of expected) await dialog.getByText(line).first().waitFor();
    return dialog.getByRole('button', { name: button, exact: true });
  }

  /**
   * Adds the field `name` of `type` to `collection` on its data model page: the field dialog,
   * `more` to fill the rest, the plan listing `expected` (`reviewed` sees it first), applied;
   * waits until the collection's field list shows it.
   */
  async addField(
    collection: string,
    field: { name: string; type: string; more?: (dialog: Locator) => Promise<void> },
    expected: readonly RegExp[],
    reviewed?: () => Promise<void>,
  ): Promise<void> {
    const page = this.page;
    await page.getByRole('button', { name: 'Add field' }).click();
    const dialog = page.getByRole('dialog', { name: `New field of ${collection}` });
    await dialog.getByLabel('Field name').fill(field.name);
    await this.pick(/^Type/, field.type, dialog);
    await field.more?.(dialog);
    await dialog.getByRole('button', { name: 'Review changes' }).click();
    const apply = await this.planLists(expected);
    await reviewed?.();
    await apply.click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page
      .getByRole('list', { name: `Fields of ${collection}` })
      .getByText(field.name, { exact: true })
      .waitFor();
  }

  /** Signs in on the Studio's page at `base` (http://host:port) and waits for the app. */
  async signIn(base: string, account: { email: string; password: string }, page: Page = this.page): Promise<void> {
    await page.goto(`${base}/admin/login`);
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }
}
