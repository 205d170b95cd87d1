/**
 * The view of a cassette (or replay report) someone sent you, in a real browser (Debian's Chromium
 * through puppeteer-core, driving the real `view` CLI): markup in every string the page shows
 * (server and client names, tool and method names, results, error messages, headers, rules,
 * violation messages and paths) stays text, no script runs, nothing is fetched from another
 * origin, and a violation's `spec` becomes a link only to the spec's own pages.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Page } from 'puppeteer-core';
import { BROWSER_HINT, chromiumPath, newPage, openBrowser, openEverything, screenshot, texts } from '../../helpers/browser.js';
import { HOSTILE_MARKUP, HOSTILE_SPECS, SPEC_LINKS } from '../../helpers/hostile-strings.js';
import { tempDir } from '../../helpers/tmp.js';
import { startView } from '../../helpers/view.js';

const withBrowser = chromiumPath ? test : test.skip;
if (!chromiumPath) console.log(`# ${BROWSER_HINT}`);

/** Markup number `i`, cycling through the list. */
const m = (i: number): string => HOSTILE_MARKUP[i % HOSTILE_MARKUP.length]!;

/** One Streamable HTTP session, shaped as `record` writes one (cassettes/examples), with markup in
 * every string the page shows, and violations whose `spec` is every hostile link plus the two
 * real kinds of spec link. */
function hostileCassette(): unknown {
  const id = 'hostile-session-1';
  const headers = (from: number): Record<string, string> =>
    Object.fromEntries(HOSTILE_MARKUP.map((_, i) => [m(from + i), m(from + i + 1)]));
  const frames: { direction: string; kind: string; json: unknown; part: string }[] = [
    {
      direction: 'client-to-server',
      kind: 'request',
      part: 'request',
      json: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: m(0), arguments: Object.fromEntries(HOSTILE_MARKUP.map((s, i) => [s, m(i + 3)])) },
      },
    },
    {
      direction: 'server-to-client',
      kind: 'response',
      part: 'response',
      json: {
        jsonrpc: '2.0',
        id: 1,
        result: { content: HOSTILE_MARKUP.map((text) => ({ type: 'text', text })), structuredContent: { [m(1)]: m(2).repeat(20) } },
      },
    },
    {
      direction: 'client-to-server',
      kind: 'request',
      part: 'request',
      json: { jsonrpc: '2.0', id: 2, method: m(4), params: { name: m(5) } },
    },
    {
      direction: 'server-to-client',
      kind: 'error',
      part: 'response',
      json: { jsonrpc: '2.0', id: 2, error: { code: -32601, message: m(6), data: HOSTILE_MARKUP } },
    },
    {
      direction: 'server-to-client',
      kind: 'notification',
      part: 'response',
      json: { jsonrpc: '2.0', method: m(7), params: { level: m(8) } },
    },
  ];
  const messages = frames.map((f, i) => ({
    seq: i + 1,
    t: i * 10,
    direction: f.direction,
    channel: 'http',
    kind: f.kind,
    bytes: Buffer.byteLength(JSON.stringify(f.json)),
    json: f.json,
    http: { exchange: 1, part: f.part },
  }));
  const violation = (seq: number, spec: string, i: number) => ({
    rule: m(i),
    severity: ['error', 'warning', 'info'][i % 3],
    session: id,
    seq,
    direction: seq % 2 ? 'client-to-server' : 'server-to-client',
    path: `/result/${m(i + 1)}`,
    message: m(i + 2),
    spec,
  });
  return {
    format: 'mcp-cassette',
    version: 2,
    sessions: [
      {
        id,
        label: m(9),
        transport: 'streamable-http',
        startedAt: '2026-11-30T15:26:58.557Z',
        endedAt: '2026-11-30T15:26:58.657Z',
        durationMs: 100,
        target: { url: 'http://127.0.0.1:44493/mcp', listen: 'http://127.0.0.1:43441/mcp' },
        protocol: { revision: '2025-11-25', era: 'legacy', negotiation: 'initialize' },
        clientInfo: { name: m(10), version: m(11) },
        serverInfo: { name: m(12), version: m(13) },
        proxy: { pid: 1, version: '0.1.0' },
        exchanges: [
          {
            id: 1,
            t: 0,
            method: 'POST',
            path: `/mcp?q=${m(0)}`,
            requestHeaders: headers(0),
            outcome: 'complete',
            mcp: true,
            status: 200,
            responseHeaders: headers(5),
            contentType: 'application/json',
            endT: 50,
          },
        ],
        messages,
        violations: [
          ...HOSTILE_SPECS.map((spec, i) => violation(2, spec, i)),
          ...SPEC_LINKS.map((spec, i) => violation(4, spec, i)),
          violation(0, HOSTILE_SPECS[0]!, 3), // not tied to a message: the session's list
        ],
      },
    ],
  };
}

/** A replay report (not checked against its schema by `view`): markup in its strings, and values
 * of the wrong type where the page formats a number, joins a list or renders a child, among them
 * an object shaped like a Preact element. */
function hostileReport(): unknown {
  const vnode = { type: 'img', props: { src: 'x', onerror: "window.__pwned='vnode'" }, __k: null, __: null, __b: 0, key: undefined };
  return {
    cassette: m(0),
    target: { command: [m(1), m(2)], url: m(3) },
    startedAt: m(4),
    durationMs: m(5),
    outcome: m(6),
    summary: { interactions: m(7), same: 1, breaking: 1, warning: 0, compatible: 0 },
    error: { code: m(8), message: vnode },
    sessions: [
      {
        index: `1" id="app`,
        id: m(9),
        label: m(10),
        transport: m(11),
        outcome: m(12),
        note: vnode,
        error: { code: m(13), message: m(14) },
        interactions: [
          {
            seq: m(0),
            method: m(1),
            name: m(2),
            outcome: `breaking ${m(3)}`,
            durationMs: m(4),
            differences: [
              { verdict: m(5), kind: m(6), path: m(7), message: vnode, recorded: HOSTILE_MARKUP, live: { [m(8)]: m(9) } },
              { verdict: 'breaking', kind: 'x', path: '/a', message: m(10) },
            ],
          },
          { seq: 2, method: 'tools/list', outcome: 'same', differences: 'not a list', note: m(11) },
        ],
      },
    ],
  };
}

interface Watch {
  foreign: string[];
  dialogs: string[];
  errors: string[];
}

/** `value` written to `name` and served by the real `view` CLI, opened in Chromium, with every
 * request that leaves for another origin, every dialog and every page error recorded. */
async function viewOf(t: ExecutionContext, name: string, value: unknown): Promise<{ page: Page; seen: Watch }> {
  const file = join(tempDir(t, 'mcpc-view-hostile-'), name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  const { url } = await startView(t, [file]);
  const page = await newPage(await openBrowser(t));
  const seen: Watch = { foreign: [], dialogs: [], errors: [] };
  page.on('request', (r) => {
    if (new URL(r.url()).origin !== url.origin) seen.foreign.push(r.url());
  });
  page.on('dialog', (d) => {
    seen.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  await page.goto(url.href);
  return { page, seen };
}

/** No script ran, no dialog opened, no request left for another origin, no markup became an element. */
async function nothingHappened(t: ExecutionContext, page: Page, seen: Watch): Promise<void> {
  t.deepEqual(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined, 'no script ran');
  t.deepEqual(seen.dialogs, [], 'no dialog opened');
  t.deepEqual(seen.foreign, [], 'no request left for another origin');
  t.deepEqual(await planted(page), [], 'no markup became an element');
}

/** What would show markup turned into elements: elements the page never makes itself, and any
 * `on*` attribute. */
function planted(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const e of document.querySelectorAll('body :is(img, iframe, svg, object, embed, style, base, meta, link), head style'))
      found.push(e.outerHTML.slice(0, 80));
    // The page's own: its bundle, and the one data block of its first screen (view-server.ts).
    const scripts = [...document.querySelectorAll('script')];
    const data = scripts.filter((e) => e.id === 'initial' && e.getAttribute('type') === 'application/json');
    for (const e of scripts)
      if (!e.getAttribute('src')?.startsWith('app.js') && !(data.length === 1 && e === data[0])) found.push(e.outerHTML.slice(0, 80));
    for (const e of document.querySelectorAll('form')) if (!e.classList.contains('filters')) found.push(e.outerHTML.slice(0, 80));
    for (const e of document.querySelectorAll('*'))
      for (const a of e.attributes) if (/^on/i.test(a.name)) found.push(`${e.tagName} ${a.name}`);
    return found;
  });
}

withBrowser(
  'a hostile cassette: its markup stays text, no script runs, nothing loads from elsewhere, only spec pages are links',
  async (t) => {
    const { page, seen } = await viewOf(t, 'hostile.cassette.json', hostileCassette());
    await page.waitForSelector('nav button.session');
    await page.waitForSelector('ol.timeline > li');
    await openEverything(page);
    await page.waitForSelector('li.row[data-seq="2"] .violation');
    await nothingHappened(t, page, seen);
    // Only the two real spec links are anchors; every hostile `spec` is shown as text.
    const anchors = await page.$$eval('a', (as) => as.map((a) => a.getAttribute('href')));
    t.deepEqual(anchors.sort(), [...SPEC_LINKS].sort());
    const specTexts = await texts(page, '.violation .spec-text');
    for (const spec of HOSTILE_SPECS)
      t.true(
        specTexts.some((s) => s.includes(spec.replace(/\s+/g, ' ').trim())),
        `shown as text: ${spec}`,
      );
    // The markup is on the page, as text, where the cassette put it.
    const nav = (await texts(page, 'nav button.session'))[0]!;
    t.true(nav.includes(m(10)) && nav.includes(m(12)), nav);
    t.true((await texts(page, 'ol.timeline .method')).some((s) => s.includes(`tools/call ${m(0)}`)));
    t.true((await texts(page, '#filter-tool option')).includes(m(0)));
    t.true((await texts(page, 'li.row[data-seq="4"] .json-viewer')).some((s) => s.includes(JSON.stringify(m(6)))));
    t.true((await texts(page, 'dl.headers dd')).includes(m(1)));
    await screenshot(page, 'hostile-cassette');

    // Clicking what looks like a link does nothing either: the hostile spec texts are not links.
    const windows = (await page.browserContext().pages()).length;
    for (const el of await page.$$('.violation .spec-text')) await el.click();
    t.deepEqual(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined);
    t.is((await page.browserContext().pages()).length, windows, 'no window opened');
    t.deepEqual(seen.foreign, []);
  },
);

withBrowser('a hostile replay report: markup and wrongly typed values stay text, the report still renders', async (t) => {
  const { page, seen } = await viewOf(t, 'report.json', hostileReport());
  await page.waitForSelector('section.replay-session table');
  t.deepEqual(seen.errors, [], 'the page rendered without an error');
  await nothingHappened(t, page, seen);
  t.is(await page.$$eval('a', (as) => as.length), 0);
  t.true((await texts(page, '#replay-title')).some((s) => s.includes(m(6))));
  t.true((await texts(page, 'dl.summary dd code')).some((s) => s.includes(`${m(1)} ${m(2)}`)));
  const table = (await texts(page, 'section.replay-session table'))[0]!;
  t.true(table.includes(m(1)) && table.includes(m(10)), table.slice(0, 300));
  // The element-shaped object is shown as its JSON, never rendered as an element.
  t.true((await texts(page, '.difference p')).some((s) => s.includes('"onerror":"window.__pwned=\'vnode\'"')));
  // The heading ids are the page's own, never the report's.
  t.deepEqual(await page.$$eval('section.replay-session h2', (hs) => hs.map((h) => h.id)), ['replay-0']);
  t.is(await page.$$eval('#app', (e) => e.length), 1);
  await screenshot(page, 'hostile-replay-report');
});
