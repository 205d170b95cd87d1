/**
 * `record --ui` in a real browser: real traffic from the official v1 SDK client through the real
 * `record` CLI (stdio in front of server-everything; Streamable HTTP in front of the example
 * server) appears on the open page as it happens, pushed by server-sent events. The view's URL is
 * on stderr; stdout of the stdio proxy stays protocol-only.
 */
import { join } from 'node:path';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'puppeteer-core';
import { BROWSER_HINT, chromiumPath, newPage, openBrowser, screenshot, texts } from '../../helpers/browser.js';
import { everythingServer, node } from '../../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../../helpers/proc.js';
import { tempDir } from '../../helpers/tmp.js';
import { defectServer, endStdio, LIVE_URL, recordHttpWithUi, recordingTransport } from '../../helpers/view.js';

const withBrowser = chromiumPath ? test : test.skip;
if (!chromiumPath) console.log(`# ${BROWSER_HINT}`);

function rowsShown(page: Page): Promise<string[]> {
  return texts(page, 'ol.timeline > li > .row-head');
}

withBrowser('record --ui over stdio: the SDK client’s traffic appears on the open page as it flows', async (t) => {
  const dir = tempDir(t, 'mcpc-view-live-');
  const transport = recordingTransport(
    join(dir, 'live.cassette.json'),
    ['--log-level', 'warn', '--ui', '127.0.0.1:0'],
    [everythingServer, 'stdio'],
    'pipe',
  );
  const seen = waitForOutput(transport.stderr as unknown as NodeJS.ReadableStream, (s) => LIVE_URL.test(s), 30_000);
  const client = new Client({ name: 'live-view-client', version: '1.0.0' });
  t.teardown(() => client.close().catch(() => undefined));
  await client.connect(transport); // the SDK would fail on any stray byte on stdout
  const url = LIVE_URL.exec(await seen)![1]!;

  const page = await newPage(await openBrowser(t));
  await page.goto(url);
  await page.waitForFunction(() => document.querySelectorAll('ol.timeline > li').length >= 2);
  t.is((await texts(page, 'header h1'))[0], 'mcp-cassette live view');
  t.true((await rowsShown(page)).some((r) => r.includes('initialize')));
  t.false((await rowsShown(page)).some((r) => r.includes('tools/call echo')));

  // New traffic while the page is open: it is pushed, no reload.
  const answer = await client.callTool({ name: 'echo', arguments: { message: 'seen live' } });
  t.truthy(answer);
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('ol.timeline > li > .row-head')].filter((e) => e.textContent!.includes('tools/call echo')).length === 2,
  );
  const nav = await texts(page, 'nav button.session');
  t.regex(nav[0]!, /live-view-client 1\.0\.0 → mcp-servers\/everything/);
  const rows = await rowsShown(page);
  t.true(
    rows.some((r) => /response.*tools\/call echo.*ms/.test(r)),
    rows.join('\n'),
  );
  // The answer's body, fetched on demand.
  const seq = await page.$$eval(
    'ol.timeline > li',
    (els) => els.filter((e) => /response.*tools\/call echo/.test(e.textContent!)).map((e) => e.getAttribute('data-seq'))[0],
  );
  await page.click(`li.row[data-seq="${seq}"] > .row-head`);
  await page.waitForSelector(`li.row[data-seq="${seq}"] .json-viewer`);
  t.true((await texts(page, `li.row[data-seq="${seq}"] .json-viewer`))[0]!.includes('result'));
  // The live validator's verdicts follow: server-everything's get-env takes no parameters and says
  // so explicitly (TOOLS-NOPARAM, info) in its tools/list answer.
  await client.listTools();
  await page.waitForFunction(() =>
    [...document.querySelectorAll('li.row.has-info .row-head')].some((e) => e.textContent!.includes('tools/list')),
  );
  const flagged = await page.$$eval('li.row.has-info', (els) => els.map((e) => e.getAttribute('data-seq')));
  await page.click(`li.row[data-seq="${flagged[0]}"] > .row-head`);
  const v = await texts(page, `li.row[data-seq="${flagged[0]}"] .violation`);
  t.true(
    v.some((x) => /info TOOLS-NOPARAM\s*get-env takes no parameters.*\/result\/tools\/\d+\/inputSchema/.test(x)),
    v.join('\n'),
  );
  t.is(
    await page.$eval(`li.row[data-seq="${flagged[0]}"] .violation a`, (a) => (a as HTMLAnchorElement).href),
    'https://modelcontextprotocol.io/specification/2025-11-25/server/tools',
  );
  // The page shows what the cassette will keep: a credential the client sent (and the server
  // echoed) is masked here too, as the recorder masks it by default.
  const secret = 'sk-live0view0secret0000000000';
  await client.callTool({ name: 'echo', arguments: { message: `key ${secret}` } });
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('ol.timeline > li > .row-head')].filter((e) => e.textContent!.includes('tools/call echo')).length === 4,
  );
  const echoes = await page.$$eval('ol.timeline > li', (els) =>
    els.filter((e) => /tools\/call echo/.test(e.querySelector('.row-head')!.textContent!)).map((e) => e.getAttribute('data-seq')!),
  );
  const token = new URL(url).searchParams.get('token')!;
  const shown: string[] = [];
  for (const [seq, pointer] of [
    [echoes[2]!, '/params/arguments/message'],
    [echoes[3]!, '/result/content/0/text'],
  ] as const) {
    const r = await fetch(`${new URL(url).origin}/api/node?token=${token}&i=0&seq=${seq}&p=${encodeURIComponent(pointer)}`);
    t.is(r.status, 200, `${seq} ${pointer}`);
    shown.push(await r.text());
  }
  t.true(
    shown.every((x) => x.includes('[REDACTED]') && !x.includes(secret)),
    shown.join('\n'),
  );
  await screenshot(page, 'live-stdio');
  await endStdio(transport);
});

withBrowser('record --ui over Streamable HTTP: exchanges with status and headers, messages and violations as they flow', async (t) => {
  const dir = tempDir(t, 'mcpc-view-live-http-');
  // defect-server.ts over HTTP: `Bearer failure-as-error` makes its listed `fail` tool fail as a
  // JSON-RPC error (TOOLS-ERR-EXECUTION); initialize opens a 2025-11-25 session (Mcp-Session-Id).
  const upstreamProc = spawnTracked(t, node, [defectServer, 'http']);
  const upstream = (await waitForOutput(upstreamProc.stdout!, (s) => s.includes('\n'))).split('\n')[0]!.trim();
  const { recorder, view: url, proxy: proxyUrl } = await recordHttpWithUi(t, upstream, join(dir, 'http.cassette.json'));

  const page = await newPage(await openBrowser(t));
  await page.goto(url);
  await page.waitForSelector('main');
  const client = new Client({ name: 'live-http-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(proxyUrl), { requestInit: { headers: { authorization: 'Bearer failure-as-error' } } }),
  );
  t.teardown(() => client.close().catch(() => undefined));
  await client.listTools();
  await page.waitForFunction(() =>
    [...document.querySelectorAll('ol.timeline > li > .row-head')].some((e) => e.textContent!.includes('tools/list')),
  );
  const rows = await rowsShown(page);
  t.true(
    rows.some((r) => /request.*tools\/list.*HTTP #\d+ 200/.test(r)),
    rows.join('\n'),
  );
  t.true((await texts(page, 'ul.exchanges .exchange')).some((x) => /POST \S+ → 200/.test(x)));
  await client.callTool({ name: 'fail', arguments: {} }).catch(() => undefined);
  await page.waitForFunction(() =>
    [...document.querySelectorAll('li.row.has-warning .row-head')].some((e) => e.textContent!.includes('tools/call fail')),
  );
  const flagged = await page.$$eval('li.row.has-warning', (els) => els.map((e) => e.getAttribute('data-seq')));
  await page.click(`li.row[data-seq="${flagged[0]}"] > .row-head`);
  t.true(
    (await texts(page, `li.row[data-seq="${flagged[0]}"] .violation`)).some((x) =>
      /warning TOOLS-ERR-EXECUTION\s*fail is a listed tool.*\/error/.test(x),
    ),
  );
  await screenshot(page, 'live-http');
  await client.close();
  recorder.kill('SIGINT');
});
