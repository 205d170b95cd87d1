/**
 * The view's first paint shows a session (issue 33): the page carries the overview and the first
 * session it opens on, so a screenshot at load shows them without waiting on a request. Proven in
 * real Chromium with every API request refused: before, the main pane stayed empty. The data block
 * is never markup: a label that tries to close it stays text.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { BROWSER_HINT, chromiumPath, newPage, openBrowser, screenshot, texts } from '../../helpers/browser.js';
import { root } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { startView } from '../../helpers/view.js';

const withBrowser = chromiumPath ? test : test.skip;
if (!chromiumPath) console.log(`# ${BROWSER_HINT}`);

const HOSTILE = '</script><script>window.__ran = 1</script>';

withBrowser('the first paint shows the first session, with no API request answered; a label cannot close the data block', async (t) => {
  const dir = tempDir(t, 'mcpc-view-paint-');
  const cassette = join(dir, 'example.cassette.json');
  const doc = JSON.parse(readFileSync(join(root, 'cassettes', 'examples', 'example-server.cassette.json'), 'utf8')) as {
    sessions: { label?: string; messages: unknown[] }[];
  };
  doc.sessions[0]!.label = HOSTILE;
  writeFileSync(cassette, JSON.stringify(doc));
  const { url } = await startView(t, [cassette]);

  const page = await newPage(await openBrowser(t));
  const asked: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const path = new URL(req.url()).pathname;
    if (path.startsWith('/api/')) {
      asked.push(path);
      void req.abort();
    } else void req.continue();
  });
  await page.goto(url.href, { waitUntil: 'load' });
  const shot = await screenshot(page, 'first-paint');
  t.log(`screenshot at load: ${shot}`);

  const rows = await texts(page, 'ol.timeline > li');
  t.is(rows.length, doc.sessions[0]!.messages.length, `the first session's messages at load, though ${asked.join(', ')} got no answer`);
  const sessions = await texts(page, 'nav button.session');
  t.is(sessions.length, doc.sessions.length);
  t.true(sessions[0]!.includes(HOSTILE), 'the hostile label is shown as text');
  t.is(await page.evaluate(() => (window as unknown as { __ran?: number }).__ran), undefined, 'no script from the cassette ran');
});
