/**
 * A 50 MB message in the browser: the page gets a bounded preview with the session, opens the
 * message collapsed, fetches each node it expands (200 children at a time), and stays responsive.
 * The message is the real server-everything recording's tools/list answer, grown to 50 MB of tools.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { BROWSER_HINT, chromiumPath, newPage, openBrowser, screenshot, texts } from '../../helpers/browser.js';
import { root } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { rawGet, startView } from '../../helpers/view.js';

const withBrowser = chromiumPath ? test : test.skip;
if (!chromiumPath) console.log(`# ${BROWSER_HINT}`);

const TOOLS = 50_000;

/** The example cassette with its tools/list answer holding TOOLS tools of ~1 KB each. */
function bigCassette(dir: string): { path: string; seq: number; bytes: number } {
  const cassette = JSON.parse(readFileSync(join(root, 'cassettes', 'examples', 'server-everything.cassette.json'), 'utf8'));
  const session = cassette.sessions[0];
  const request = session.messages.find((m: { json?: { method?: string } }) => m.json?.method === 'tools/list');
  const answer = session.messages.find(
    (m: { json?: { id?: unknown; result?: unknown } }) => m.json?.result && m.json.id === request.json.id,
  );
  const template = answer.json.result.tools[0];
  answer.json.result.tools = Array.from({ length: TOOLS }, (_, i) => ({
    ...template,
    name: `tool-${i}`,
    description: `${i} `.padEnd(1000, 'x'),
  }));
  delete answer.raw;
  answer.bytes = Buffer.byteLength(JSON.stringify(answer.json));
  const path = join(dir, 'big.cassette.json');
  writeFileSync(path, JSON.stringify(cassette));
  return { path, seq: answer.seq, bytes: answer.bytes };
}

withBrowser('a 50 MB message opens collapsed, node by node, and the page stays responsive', async (t) => {
  const dir = tempDir(t, 'mcpc-view-big-');
  const big = bigCassette(dir);
  t.true(big.bytes > 50_000_000, `${big.bytes} bytes`);
  const { url } = await startView(t, [big.path]);

  // What the page gets for the session is bounded: a preview of each message, never its body.
  const detailUrl = new URL('/api/session', url);
  detailUrl.searchParams.set('token', url.searchParams.get('token')!);
  detailUrl.searchParams.set('i', '0');
  t.true((await rawGet(detailUrl)).body.length < 100_000);

  const page = await newPage(await openBrowser(t));
  await page.goto(url.href);
  await page.waitForSelector(`li.row[data-seq="${big.seq}"]`);
  t.regex((await texts(page, `li.row[data-seq="${big.seq}"] > .row-head`))[0]!, /tools\/list/);
  await page.click(`li.row[data-seq="${big.seq}"] > .row-head`);
  const row = `li.row[data-seq="${big.seq}"]`;
  await page.waitForSelector(`${row} .json-viewer`);
  t.true((await texts(page, `${row} .json-viewer .json-toggle`)).some((s) => s === 'result: {1 key}'));
  await page.click(`${row} .json-viewer .json-toggle`);
  await page.waitForFunction(
    (sel) => [...document.querySelectorAll(`${sel} .json-toggle`)].some((e) => e.textContent === 'tools: [50000 items]'),
    {},
    row,
  );
  const tools = await page.$$(`${row} .json-toggle`);
  for (const b of tools) if ((await b.evaluate((e) => e.textContent)) === 'tools: [50000 items]') await b.click();
  await page.waitForSelector(`${row} button.more`);
  t.is((await texts(page, `${row} button.more`))[0], 'show more (200 of 50000)');
  const rendered = (): Promise<number> => page.$$eval(`${row} .json-node`, (els) => els.length);
  const first = await rendered();
  t.true(first <= 210, `${first} nodes rendered after opening 50 000 tools`);
  await page.click(`${row} button.more`);
  await page.waitForFunction((sel) => document.querySelector(`${sel} button.more`)?.textContent === 'show more (400 of 50000)', {}, row);
  t.true((await rendered()) <= 410);
  // The page answers while holding the message: a script runs (puppeteer's protocol timeout bounds it).
  t.is(await page.evaluate(() => document.querySelectorAll('main').length), 1);
  await screenshot(page, 'large-message');
});
