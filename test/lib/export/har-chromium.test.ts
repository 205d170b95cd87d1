import test from 'ava';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayCassette } from '../../../replay/index.js';
import { BROWSER_HINT, chromiumPath } from '../../helpers/browser.js';
import { found, importHar, runCli, textOf } from '../../helpers/har.js';
import { removeDir } from '../../helpers/tmp.js';
import { CLIENT_INFO, recordChromiumHar, sseEvents, startPageServer } from './chromium-har.js';

// `import --from har` on a HAR that real Chromium's traffic makes (an independent recorder:
// Playwright's, not our export), checked against what the page itself sent and received.
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-har-chromium-'));
test.after.always(() => removeDir(dir));
const TOKEN = 'tok-91d2c4e8a7b3f605';

const withBrowser = chromiumPath ? test : test.skip;
if (!chromiumPath) console.log(`# ${BROWSER_HINT}`);

const importTo = (har: string, name: string) => importHar(har, join(dir, name));

withBrowser(
  "a HAR that real Chromium traffic makes (Playwright recording a page that speaks MCP with fetch()): the cassette holds what the page sent and got, the page's own requests skipped, the token masked; it validates and replays clean",
  async (t) => {
    const har = join(dir, 'chromium.har');
    const page = await recordChromiumHar(t, har, TOKEN);
    t.true(readFileSync(har, 'utf8').includes(`Bearer ${TOKEN}`), "the browser's HAR holds the bearer token in clear");
    const { path, cassette, stderr } = await importTo(har, 'chromium.cassette.json');
    t.regex(stderr, new RegExp(`import: ${page.length} MCP exchanges in 1 session added to .*; 2 entries skipped \\(not MCP\\)`));
    t.false(readFileSync(path, 'utf8').includes(TOKEN), 'the bearer token in clear in the HAR is masked in the cassette');
    t.is(cassette.sessions.length, 1);
    const s = cassette.sessions[0]!;
    t.is(s.label, 'imported from chromium.har');

    // The session, as the page saw it: the id the initialize answer gave, the revision and server
    // the answer named, the client the page said it was.
    const sessionId = page[0]!.sessionId;
    t.truthy(sessionId);
    t.is(s.mcpSessionId, sessionId!);
    const initialized = JSON.parse(sseEvents(page[0]!.text)[0]!.data) as { result: { protocolVersion: string; serverInfo: unknown } };
    t.is(s.protocol.revision, initialized.result.protocolVersion);
    t.deepEqual(s.serverInfo, initialized.result.serverInfo);
    t.deepEqual(s.clientInfo, CLIENT_INFO);

    // One exchange per fetch() of the page, in the order it made them, with what it got back.
    const exchanges = s.exchanges!;
    t.deepEqual(
      exchanges.map((x) => [x.method, x.status, x.contentType ?? null]),
      page.map((p) => [p.method, p.status, p.contentType]),
    );
    t.true(exchanges.filter((x) => x.method === 'POST').every((x) => x.requestHeaders.authorization === 'Bearer [REDACTED]'));
    t.true(
      exchanges.every((x) => Object.keys(x.requestHeaders).every((n) => n === n.toLowerCase())),
      'header names lowercased as recorded',
    );
    t.deepEqual(
      exchanges.slice(1).map((x) => x.requestHeaders['mcp-session-id']),
      page.slice(1).map(() => sessionId),
      'every request after initialize carried the session id',
    );

    // Every message: the body the page sent, and each event (or JSON body) the page read, in order,
    // at a time within the page's own fetch() call.
    const startedAt = Date.parse(s.startedAt);
    const SLACK_MS = 100;
    page.forEach((p, i) => {
      const x = exchanges[i]!;
      const on = s.messages.filter((m) => m.http?.exchange === x.id);
      const where = `${p.method} #${i + 1}`;
      t.deepEqual(
        on.filter((m) => m.direction === 'client-to-server').map((m) => [textOf(m), m.http!.part]),
        p.body !== undefined ? [[p.body, 'request']] : [],
        where,
      );
      const expected = p.contentType?.startsWith('text/event-stream')
        ? sseEvents(p.text).map(({ data, ...fields }) => ({ data, part: 'sse', sse: fields }))
        : p.text !== ''
          ? [{ data: p.text, part: 'response' }]
          : [];
      t.deepEqual(
        on
          .filter((m) => m.direction === 'server-to-client')
          .map((m) => ({ data: textOf(m), part: m.http!.part, ...(m.http!.sse ? { sse: m.http!.sse } : {}) })),
        expected,
        where,
      );
      for (const at of [x.t, ...on.map((m) => m.t)])
        t.true(
          startedAt + at >= p.started - SLACK_MS && startedAt + at <= p.ended + SLACK_MS,
          `${where}: ${new Date(startedAt + at).toISOString()} within the page's fetch() (${new Date(p.started).toISOString()}..${new Date(p.ended).toISOString()})`,
        );
    });
    t.true(
      page.some((p) => p.method === 'POST' && sseEvents(p.text).length === 4),
      'a POST answered with a stream of several events',
    );
    t.true(
      sseEvents(page.find((p) => p.method === 'GET')!.text).some((e) => e.data.includes('announcing release')),
      'the listen stream carried the announcement',
    );

    const v = await runCli(['validate', path]);
    t.is(v.code, 0, v.stderr);
    const r = await replayCassette(path, { url: (await startPageServer(t)).mcpUrl, config: false, timeoutMs: 10_000 });
    t.deepEqual(found(r), []);
    t.is(r.outcome, 'passed');
    t.is(r.summary.skipped, 0);
  },
);
