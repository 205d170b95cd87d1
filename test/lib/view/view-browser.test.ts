/**
 * The view in a real browser (Debian's Chromium through puppeteer-core): the real `view` CLI on a
 * directory holding a real recording with a violation (SDK client, record CLI, defect-server) and
 * the server-everything example; sessions, messages, violations, filters, keyboard and landmarks.
 * Screenshots go to test-artifacts/view/ ($VIEW_ARTIFACTS_DIR).
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { BROWSER_HINT, chromiumPath, newPage, openBrowser, screenshot, texts } from '../../helpers/browser.js';
import { root } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { recordDefectCassette, startView } from '../../helpers/view.js';

const withBrowser = chromiumPath ? test : test.skip;
if (!chromiumPath) console.log(`# ${BROWSER_HINT}`);

withBrowser('a directory of cassettes: sessions, paired messages, violations with spec links, filters, keyboard, landmarks', async (t) => {
  const dir = tempDir(t, 'mcpc-view-');
  const defect = join(dir, 'a-defect.cassette.json');
  await recordDefectCassette(defect);
  t.true(existsSync(defect), 'the recorder wrote its cassette');
  copyFileSync(join(root, 'cassettes', 'examples', 'server-everything.cassette.json'), join(dir, 'b-everything.cassette.json'));
  const { url } = await startView(t, [dir]);
  t.is(url.hostname, '127.0.0.1');

  const page = await newPage(await openBrowser(t));
  // Without the token the browser gets nothing but the refusal.
  const bare = new URL(url.href);
  bare.search = '';
  t.is((await page.goto(bare.href))?.status(), 401);
  await page.goto(url.href);
  await page.waitForSelector('nav button.session');
  // Landmarks and labels.
  t.is(await page.$$eval('main', (e) => e.length), 1);
  t.is(await page.$$eval('nav[aria-label="Sessions"]', (e) => e.length), 1);
  const sessions = await texts(page, 'nav button.session');
  t.is(sessions.length, 2);
  // Sessions in the order they started: the example was recorded first.
  t.regex(sessions[0]!, /mcp-cassette-v1-test 1\.0\.0 → mcp-servers\/everything 2\.0\.0/);
  t.regex(sessions[0]!, /13 messages, 875 ms, 4 violations/);
  t.regex(sessions[1]!, /stdio 2025-11-25/);
  t.regex(sessions[1]!, /view-test-client 1\.0\.0 → defect-server 1\.0\.0/);
  t.regex(sessions[1]!, /, 1 violation(?!s)/);
  const unlabelled = await page.$$eval('select', (els) => els.filter((e) => !document.querySelector(`label[for="${e.id}"]`)).length);
  t.is(unlabelled, 0, 'every filter has a label');

  // The example session: stored info violations on server-everything's tools.
  await page.waitForFunction(() => document.querySelectorAll('li.row.has-info').length > 0);
  t.true((await texts(page, '#session-title')).some((s) => s.includes('12cdef1f-e42d-43bb-a4cb-30e4ad117ace')));
  await screenshot(page, 'cassette-session');

  // The defect session: requests paired with answers, the violation on the failing call's answer.
  await page.click('nav li:nth-child(2) button.session');
  await page.waitForFunction(() => document.querySelectorAll('li.row.has-warning').length > 0);
  const rows = await texts(page, 'ol.timeline > li > .row-head');
  t.true(rows.some((r) => /tools\/call fail/.test(r) && /ms/.test(r)));
  const flagged = await page.$$eval('li.row.has-warning', (els) => els.map((e) => e.getAttribute('data-seq')));
  t.is(flagged.length, 1);
  await page.click(`li.row[data-seq="${flagged[0]}"] > .row-head`);
  await page.waitForSelector('li.row.has-warning .violation');
  const v = await texts(page, 'li.row.has-warning .violation');
  t.regex(v[0]!, /warning TOOLS-ERR-EXECUTION/);
  t.regex(v[0]!, /\/error/);
  const spec = await page.$eval('li.row.has-warning .violation a', (a) => (a as HTMLAnchorElement).href);
  t.is(spec, 'https://modelcontextprotocol.io/specification/2025-11-25/server/tools');
  t.regex((await texts(page, 'li.row.has-warning .row-body p'))[0]!, /answers #\d+ after [\d.]+ ms/);
  // The JSON viewer marks the path of the violation.
  await page.waitForSelector('li.row.has-warning .json-node.marked');
  t.deepEqual(await texts(page, 'li.row.has-warning .json-node.marked > button .json-key'), ['error']);
  await screenshot(page, 'cassette-violation');

  // Filters: method, then rule, then severity.
  await page.select('#filter-method', 'tools/call');
  const callRows = await texts(page, 'ol.timeline > li > .row-head');
  t.true(callRows.length >= 4 && callRows.every((r) => r.includes('tools/call')), callRows.join('\n'));
  await page.select('#filter-method', '');
  await page.select('#filter-tool', 'lookup');
  t.true((await texts(page, 'ol.timeline > li > .row-head')).every((r) => r.includes('tools/call lookup')));
  await page.select('#filter-tool', '');
  await page.select('#filter-rule', 'TOOLS-ERR-EXECUTION');
  t.deepEqual(await page.$$eval('ol.timeline > li', (els) => els.map((e) => e.getAttribute('data-seq'))), flagged);
  await page.select('#filter-rule', '');
  await page.select('#filter-severity', 'error');
  t.is((await texts(page, 'ol.timeline > li')).length, 0);
  await page.select('#filter-severity', '');

  // Keyboard: Tab reaches the list, arrows move, Enter opens.
  await page.click(`li.row[data-seq="${flagged[0]}"] > .row-head`); // close it again
  await page.focus('#filter-severity');
  let focused = '';
  for (let i = 0; i < 10 && !focused.startsWith('row'); i++) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate(() =>
      document.activeElement?.classList.contains('row-head') ? `row ${document.activeElement.parentElement!.dataset.seq}` : '',
    );
  }
  t.is(focused, 'row 1', 'Tab from the filters reaches the first message');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  t.is(await page.evaluate(() => document.activeElement!.parentElement!.dataset.seq), '3');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  t.is(await page.$eval('li.row[data-seq="2"] > .row-head', (b) => b.getAttribute('aria-expanded')), 'true');
});
