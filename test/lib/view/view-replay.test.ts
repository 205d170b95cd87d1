/**
 * A replay report in the browser: a real `replay` of the server-everything recording against an
 * older server-everything (2025.11.25), whose report has breaking differences; each interaction's
 * verdict and each difference's recorded and live values side by side.
 */
import { join } from 'node:path';
import test from 'ava';
import { BROWSER_HINT, chromiumPath, newPage, openBrowser, screenshot, texts } from '../../helpers/browser.js';
import { cli, node, root } from '../../helpers/paths.js';
import { collect, spawnTracked } from '../../helpers/proc.js';
import { tempDir } from '../../helpers/tmp.js';
import { startView } from '../../helpers/view.js';

const withBrowser = chromiumPath ? test : test.skip;
if (!chromiumPath) console.log(`# ${BROWSER_HINT}`);

withBrowser('a replay report: verdicts per interaction, recorded and live values side by side', async (t) => {
  const dir = tempDir(t, 'mcpc-view-replay-');
  const report = join(dir, 'replay-report.json');
  const older = join(root, 'node_modules', 'everything-2025-11-25', 'dist', 'index.js');
  const cassette = join(root, 'cassettes', 'examples', 'server-everything.cassette.json');
  const replay = await collect(
    spawnTracked(t, node, [cli, 'replay', cassette, '--quiet', '--report', `json=${report}`, '--', node, older, 'stdio']),
  );
  t.is(replay.code, 1, replay.stderr);
  const { url } = await startView(t, [report]);

  const page = await newPage(await openBrowser(t));
  await page.goto(url.href);
  await page.waitForSelector('#replay-title');
  t.is((await texts(page, '#replay-title'))[0], 'Replay: breaking');
  t.is(await page.$$eval('main', (e) => e.length), 1);
  const rows = await texts(page, 'table tbody tr');
  t.true(
    rows.some((r) => r.startsWith('8tools/call get-sum') && r.includes('breaking')),
    rows.join('\n'),
  );
  // The failing call: recorded result next to the live error.
  const failing = await page.$$eval('li.difference', (els) =>
    els
      .filter((e) => e.textContent?.includes('success-became-error'))
      .map((e) => ({ recorded: e.querySelector('pre.recorded')!.textContent!, live: e.querySelector('pre.live')!.textContent! })),
  );
  t.true(
    failing.some((f) => f.recorded.includes('The sum of 2 and 3 is 5.') && f.live.includes('Unknown tool: get-sum')),
    JSON.stringify(failing),
  );
  const described = await page.$$eval('li.difference', (els) =>
    els
      .filter((e) => e.textContent?.includes('tool-description-changed'))
      .map((e) => [e.querySelector('pre.recorded')!.textContent, e.querySelector('pre.live')!.textContent]),
  );
  t.true(described.some(([r, l]) => r === '"Echoes back the input string"' && l === '"Echoes back the input"'));
  await screenshot(page, 'replay-report');
});
