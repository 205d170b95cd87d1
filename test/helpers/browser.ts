/**
 * Headless Chromium for the view's browser tests: Debian's `chromium` (`.ci/run` installs it) or
 * the one `$CHROMIUM_PATH` names, driven by puppeteer-core. Without one, the tests that need it
 * are reported as skipped with BROWSER_HINT, never passed.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { root } from './paths.js';

export const chromiumPath: string | undefined = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);

export const BROWSER_HINT =
  'no Chromium found: `apt-get install -y chromium` (as .ci/run does) or set CHROMIUM_PATH to a Chromium binary to run the browser tests';

/** Where screenshots go: `$VIEW_ARTIFACTS_DIR`, else test-artifacts/view/ (gitignored). */
export const artifactsDir = process.env.VIEW_ARTIFACTS_DIR ?? join(root, 'test-artifacts', 'view');

/** A browser for one test, closed when the test ends. */
export async function openBrowser(t: ExecutionContext): Promise<Browser> {
  const browser = await puppeteer.launch({
    executablePath: chromiumPath!,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  t.teardown(() => browser.close());
  return browser;
}

export async function newPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  return page;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(artifactsDir, { recursive: true });
  const path = join(artifactsDir, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** The texts of every element matching `selector`. */
export function texts(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (els) => els.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()));
}

/** Opens every row, every JSON node (`levels` deep) and every header list of the session shown.
 * Clicks go to the elements themselves (a click at coordinates could land on a row that a
 * loading JSON viewer just moved), one row at a time (each toggle renders before the next). */
export async function openEverything(page: Page, levels = 4): Promise<void> {
  const seqs = await page.$$eval('ol.timeline > li.row', (els) => els.map((e) => e.getAttribute('data-seq')!));
  for (const seq of seqs) {
    const head = `ol.timeline > li.row[data-seq="${seq}"] > .row-head`;
    if ((await page.$eval(head, (b) => b.getAttribute('aria-expanded'))) === 'true') continue;
    await page.$eval(head, (b) => (b as HTMLButtonElement).click());
    await page.waitForSelector(`${head}[aria-expanded="true"]`);
  }
  for (let level = 0; level < levels; level++) {
    await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0);
    const clicked = await page.$$eval('button.json-toggle[aria-expanded="false"]', (bs) => {
      for (const b of bs) (b as HTMLButtonElement).click();
      return bs.length;
    });
    if (clicked === 0) break;
    await page.waitForFunction(() =>
      [...document.querySelectorAll('button.json-toggle[aria-expanded="true"]')].every((b) => b.parentElement!.querySelector('.json-body')),
    );
  }
  await page.$$eval('details', (ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
}
