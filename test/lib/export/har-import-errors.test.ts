/**
 * `import --from har` on bad input: each problem is a CassetteError with its stable code, a
 * message that names the file, the entry and the fix, and exit 2 from the CLI (no stack trace).
 */
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importHar } from '../../../lib/export/har/import-har.js';
import { runCli } from '../../helpers/har.js';
import { tempDir } from '../../helpers/tmp.js';

const URL_ = 'http://127.0.0.1:8931/mcp';
const INIT =
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}';
const RESULT =
  '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}';

type Entry = Record<string, unknown>;

function entry(
  opts: { method?: string; url?: string; post?: string | null; mime?: string; text?: string; size?: number; extra?: Entry } = {},
): Entry {
  const text = opts.text;
  return {
    startedDateTime: '2026-12-01T10:00:00.000Z',
    time: 12,
    request: {
      method: opts.method ?? 'POST',
      url: opts.url ?? URL_,
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'Content-Type', value: 'application/json' }],
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: 0,
      ...(opts.post === null ? {} : { postData: { mimeType: 'application/json', text: opts.post ?? INIT } }),
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'Content-Type', value: opts.mime ?? 'application/json' }],
      cookies: [],
      content: {
        size: opts.size ?? (text === undefined ? 0 : Buffer.byteLength(text)),
        mimeType: opts.mime ?? 'application/json',
        ...(text !== undefined ? { text } : {}),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 1, wait: 10, receive: 1 },
    ...opts.extra,
  };
}

const har = (...entries: Entry[]) =>
  JSON.stringify({ log: { version: '1.2', creator: { name: 'WebInspector', version: '537.36' }, entries } });

const CASES: { title: string; text: string; code: string; message: RegExp }[] = [
  { title: 'not JSON', text: '{"log": {"entries": [', code: 'MCPC_HAR_INVALID', message: /is not JSON \(.*\); give a \.har file/ },
  {
    title: 'JSON but not HAR',
    text: '{"entries": []}',
    code: 'MCPC_HAR_INVALID',
    message: /is JSON but not HAR: it has no log\.entries list/,
  },
  {
    title: 'an entry without a request url',
    text: JSON.stringify({ log: { entries: [{ startedDateTime: '2026-12-01T10:00:00Z', request: { method: 'GET' }, response: {} }] } }),
    code: 'MCPC_HAR_INVALID',
    message: /is not valid HAR: entry 1 has no request method or url/,
  },
  {
    title: 'no MCP entry',
    text: har(entry({ method: 'GET', url: 'http://127.0.0.1:8931/', post: null, mime: 'text/html', text: '<p>hi</p>' })),
    code: 'MCPC_HAR_NO_MCP',
    message: /holds 1 entry and no MCP exchange; capture the MCP endpoint's traffic with its bodies/,
  },
  {
    title: 'a HAR exported from a stdio cassette',
    text: har(entry({ url: 'stdio://server/initialize', text: RESULT })),
    code: 'MCPC_HAR_NO_MCP',
    message: /exported from a stdio cassette .* import reads Streamable HTTP captures/,
  },
  {
    title: 'a request body cut short',
    text: har(entry({ post: INIT.slice(0, 60), text: RESULT })),
    code: 'MCPC_HAR_TRUNCATED',
    message: /entry 1 \(POST http:\/\/127\.0\.0\.1:8931\/mcp\) has a request body that is not whole JSON \(60 bytes\); save the HAR again/,
  },
  {
    title: 'a POST without its body',
    text: har(entry({ post: null, text: RESULT, extra: { _x: 1 } }), entry({ text: RESULT })),
    code: 'MCPC_HAR_TRUNCATED',
    message: /entry 1 \(POST .*\) has no request body \(postData\.text\)/,
  },
  {
    title: 'a response body shorter than its size',
    text: har(entry({ text: RESULT.slice(0, 40), size: Buffer.byteLength(RESULT) })),
    code: 'MCPC_HAR_TRUNCATED',
    message: new RegExp(`has a response body of 40 bytes where content.size says ${Buffer.byteLength(RESULT)}: it was cut short`),
  },
  {
    title: 'a JSON response that is not whole JSON',
    text: har(entry({ text: RESULT.slice(0, 40) })),
    code: 'MCPC_HAR_TRUNCATED',
    message: /has a JSON response body that is not whole JSON \(40 bytes\)/,
  },
  {
    title: 'a response body left out',
    text: har(entry({})),
    code: 'MCPC_HAR_TRUNCATED',
    message: /has no response body \(content\.text\) for a JSON-RPC request/,
  },
  {
    title: 'an event stream cut inside an event',
    text: har(entry({ mime: 'text/event-stream', text: `event: message\ndata: ${RESULT.slice(0, 30)}` })),
    code: 'MCPC_HAR_TRUNCATED',
    message: /has an event stream whose last event never ended/,
  },
  {
    title: 'an event stream with neither text nor events',
    text: har(entry({ mime: 'text/event-stream' })),
    code: 'MCPC_HAR_TRUNCATED',
    message: /has an event-stream response with neither content\.text nor _eventSourceMessages/,
  },
];

for (const c of CASES) {
  test(`bad input, ${c.title}: ${c.code}, exit 2, the problem and the fix named`, async (t) => {
    const file = join(tempDir(t), 'capture.har');
    writeFileSync(file, c.text);
    const err = t.throws(() => importHar(file, c.text)) as Error & { code?: string };
    t.is(err.code, c.code);
    t.regex(err.message, c.message);
    t.true(err.message.includes(file), 'names the file');
    const r = await runCli(['import', '--from', 'har', file]);
    t.is(r.code, 2);
    t.is(r.stdout, '', 'no cassette written');
    t.is(r.stderr, `mcp-cassette: ${err.message}\n`);
  });
}

test('the same entries whole import fine (the cases above fail for their defect only)', (t) => {
  const event = `event: message\nid: 1\ndata: ${RESULT}\n\n`;
  const text = har(
    entry({ text: RESULT }),
    entry({ post: '{"jsonrpc":"2.0","id":1,"method":"ping"}', mime: 'text/event-stream', text: event.replace('"id":0', '"id":1') }),
  );
  const r = importHar('whole.har', text);
  t.is(r.exchanges, 2);
  t.deepEqual(
    r.sessions.flatMap((s) => s.messages.map((m) => `${m.kind} ${m.http?.part}`)),
    ['request request', 'response response', 'request request', 'response sse'],
  );
});

test('import needs --from har; a missing file is named (exit 2)', async (t) => {
  const none = await runCli(['import', 'x.har']);
  t.is(none.code, 2);
  t.regex(none.stderr, /import needs --from \(one of: har\)/);
  const other = await runCli(['import', '--from', 'pcap', 'x.har']);
  t.regex(other.stderr, /cannot import from "pcap"; use --from har/);
  const missing = await runCli(['import', '--from', 'har', join(tempDir(t), 'nope.har')]);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /cannot read .*nope\.har \(no such file or folder\)/);
});
