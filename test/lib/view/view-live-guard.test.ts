/**
 * `record --ui` in front of a real server (test/servers/echo-secrets-server.ts, official v2 SDK,
 * Streamable HTTP), driven by the official v2 SDK client through the real `record` CLI: the live
 * view's token, Host and Origin guard refuse what they must with the documented status, every
 * response carries the security headers, and a client's Bearer token (its Authorization header)
 * and the credentials it puts in a message are masked in the view's JSON API and on the page in
 * a real Chromium, while the server still got them as sent.
 */
import { join } from 'node:path';
import test from 'ava';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { BROWSER_HINT, chromiumPath, newPage, openBrowser, openEverything, screenshot } from '../../helpers/browser.js';
import { PLANTED, startEchoHttpSeeingHeaders } from '../../helpers/capture.js';
import { delay } from '../../helpers/proc.js';
import { v2Client } from '../../helpers/real-server.js';
import { tempDir } from '../../helpers/tmp.js';
import { rawGet, recordHttpWithUi, VIEW_CSP } from '../../helpers/view.js';

const withBrowser = chromiumPath ? test : test.skip;
if (!chromiumPath) console.log(`# ${BROWSER_HINT}`);

/** The client's own token, in its Authorization header: no shape but the header's scheme. */
const BEARER = 'liveView0Bearer0Token0abcdef123456';
/** What the client says in its tool call: credentials of three shapes. */
const SAID = `keys ${PLANTED.sk.text} and ${PLANTED.jwt.text} and ${PLANTED.bearer.text}`;
const NEEDLES = [BEARER, PLANTED.sk.needle, PLANTED.jwt.needle, PLANTED.bearer.needle];

function apiUrl(view: URL, path: string, params: Record<string, string | number> = {}): URL {
  const u = new URL(path, view);
  u.search = '';
  u.searchParams.set('token', view.searchParams.get('token')!);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, String(v));
  return u;
}

async function getJson(view: URL, path: string, params: Record<string, string | number> = {}): Promise<{ text: string; value: any }> {
  const r = await rawGet(apiUrl(view, path, params));
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.body}`);
  return { text: r.body, value: JSON.parse(r.body) };
}

/** Every node of every message of every session, as the page would fetch them (api/node). */
async function everyNode(view: URL): Promise<string[]> {
  const out: string[] = [];
  const overview = await getJson(view, 'api/overview');
  out.push(overview.text);
  for (const s of overview.value.sessions as { index: number }[]) {
    const detail = await getJson(view, 'api/session', { i: s.index });
    out.push(detail.text);
    for (const row of detail.value.rows as { seq: number }[]) {
      const pending = [''];
      while (pending.length) {
        const node = await getJson(view, 'api/node', { i: s.index, seq: row.seq, p: pending.pop()! });
        out.push(node.text);
        for (const c of (node.value.children ?? []) as { pointer: string; type: string }[])
          if (c.type === 'object' || c.type === 'array' || c.type === 'string') pending.push(c.pointer);
      }
    }
  }
  return out;
}

withBrowser(
  'record --ui: the guard refuses, the headers are set, and a Bearer token and credentials in a message are masked in the API and on the page',
  async (t) => {
    const dir = tempDir(t, 'mcpc-view-live-guard-');
    const upstream = await startEchoHttpSeeingHeaders(t);
    const { recorder, view: viewText, proxy } = await recordHttpWithUi(t, upstream.url, join(dir, 'live.cassette.json'));
    const view = new URL(viewText);
    const token = view.searchParams.get('token')!;

    // The guard, as for `view`: 403 for a foreign Host or Origin, 401 without the right token.
    const page0 = apiUrl(view, '/');
    const refusals: [string, URL, Record<string, string>, number][] = [
      ['the page', page0, {}, 200],
      ['the API from the page itself', apiUrl(view, 'api/overview'), { origin: view.origin }, 200],
      ['no token', new URL('/', view), {}, 401],
      ['a wrong token', apiUrl(view, 'api/overview', { token: 'x'.repeat(token.length) }), {}, 401],
      ['a token one character short', apiUrl(view, 'api/overview', { token: token.slice(1) }), {}, 401],
      ['a foreign Host (DNS rebinding)', page0, { host: `evil.example:${view.port}` }, 403],
      ['a foreign Origin', apiUrl(view, 'api/overview'), { origin: 'http://evil.example' }, 403],
      ['Origin null', apiUrl(view, 'api/overview'), { origin: 'null' }, 403],
    ];
    for (const [what, u, headers, status] of refusals) {
      const r = await rawGet(u, headers);
      t.is(r.status, status, what);
      t.is(r.headers['content-security-policy'], VIEW_CSP, what);
      t.is(r.headers['referrer-policy'], 'no-referrer', what);
      if (status !== 200) t.false(r.body.includes('"sessions"'), `${what}: no data in the refusal`);
    }

    const client = v2Client();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(proxy), { requestInit: { headers: { authorization: `Bearer ${BEARER}` } } }),
    );
    t.teardown(() => client.close().catch(() => undefined));
    const answer = await client.callTool({ name: 'echo', arguments: { text: SAID } });
    t.true(JSON.stringify(answer).includes(PLANTED.sk.text), 'the client got its answer as the server wrote it');
    t.true(
      upstream.seen().some((h) => h.authorization === `Bearer ${BEARER}`),
      'the server got the token as the client sent it',
    );

    // The live view has the call and its answer (they arrive a moment after the traffic).
    let texts: string[] = [];
    for (let i = 0; i < 600; i++) {
      texts = await everyNode(view);
      if (texts.some((x) => x.includes('you said: keys'))) break;
      await delay(100);
    }
    const all = texts.join('\n');
    t.true(all.includes('you said: keys'), 'the echo answer is in the live view');
    for (const needle of NEEDLES) t.false(all.includes(needle), `the API never hands out ${needle}`);
    t.true(all.includes('[REDACTED]'));
    const sessions = JSON.parse(texts[0]!).sessions as { index: number }[];
    const exchanges = (
      await Promise.all(
        sessions.map(
          async (s) => (await getJson(view, 'api/session', { i: s.index })).value.exchanges as { requestHeaders: Record<string, string> }[],
        ),
      )
    ).flat();
    t.true(exchanges.length > 0);
    t.true(
      exchanges.every((x) => x.requestHeaders.authorization === 'Bearer [REDACTED]'),
      JSON.stringify(exchanges.map((x) => x.requestHeaders.authorization)),
    );

    // The page, every session, row, JSON node and header list opened.
    const page = await newPage(await openBrowser(t));
    await page.goto(view.href);
    await page.waitForSelector('nav button.session');
    for (let s = 0; s < sessions.length; s++) {
      await page.click(`nav li:nth-child(${s + 1}) button.session`);
      await page.waitForFunction((n) => document.querySelector('#session-title')?.textContent?.startsWith(`Session ${n}`), {}, s + 1);
      await openEverything(page, 6);
      const shown = await page.evaluate(() => document.documentElement.outerHTML);
      for (const needle of NEEDLES) t.false(shown.includes(needle), `session ${s + 1}: the page never shows ${needle}`);
      if (shown.includes('you said')) {
        t.true(shown.includes('[REDACTED]'));
        await screenshot(page, 'live-masked');
      }
    }
    await client.close();
    recorder.kill('SIGINT');
  },
);
