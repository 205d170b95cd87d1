import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateSession } from '../../validators/engine.js';
import { RULES } from '../../validators/rules/index.js';
import { node } from '../helpers/paths.js';
import { collect, waitForOutput } from '../helpers/proc.js';
import { line, readCassette, startRecorder } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

// A stdio server that acknowledges a subscriptions/listen and then, in `exit` mode, shuts down
// cleanly on its own without ending the subscription, once the file named by its second argument
// exists (the test creates it when the live validator is up: a session that ends before its
// validator started is judged when written, not live); it always exits on EOF.
const SERVER = `
const mode = process.argv[1];
const flag = process.argv[2];
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => {
  buf += c;
  for (let i; (i = buf.indexOf('\\n')) >= 0; ) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (m.method !== 'subscriptions/listen') continue;
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': m.id } } }) + '\\n');
    if (mode === 'exit') setInterval(() => require('node:fs').existsSync(flag) && process.exit(0), 20);
  }
});
process.stdin.on('end', () => process.exit(0));
`;

const LISTEN = {
  jsonrpc: '2.0',
  id: 'L1',
  method: 'subscriptions/listen',
  params: {
    notifications: { toolsListChanged: true },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    },
  },
};

test('live, the session-end rules judge a stdio session when it closes, as the cassette does', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'teardown.cassette.json');
  const flag = join(dir, 'exit-now');
  const proxy = startRecorder(t, cassette, [node, '-e', SERVER, 'exit', flag], { extra: ['--log-level', 'debug'] });
  const done = collect(proxy);
  proxy.stdin!.write(line(LISTEN)); // stdin stays open: the server closes the session itself
  await waitForOutput(proxy.stderr!, (s) => s.includes('live validation ready'), 30_000);
  writeFileSync(flag, '');
  const r = await done;
  t.regex(r.stderr, /CANCEL-SERVER-TEARDOWN/, 'alerted live');
  const s = readCassette(cassette).sessions[0]!;
  t.like(s.end, { reason: 'exit', exitCode: 0 });
  t.deepEqual(
    (s.violations ?? []).map((v) => `${v.rule} #${v.seq}`),
    ['CANCEL-SERVER-TEARDOWN #1'],
  );
  t.deepEqual(s.violations, validateSession(s, { rules: RULES }), 'live verdicts equal offline verdicts');
});

test("a stdio session the client closes (stdin EOF) with a subscription open is not the server's teardown", async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'eof.cassette.json');
  const proxy = startRecorder(t, cassette, [node, '-e', SERVER, 'eof']);
  const done = collect(proxy);
  proxy.stdin!.end(line(LISTEN));
  await done;
  const s = readCassette(cassette).sessions[0]!;
  t.like(s.end, { reason: 'exit', exitCode: 0, initiatedBy: 'host-eof' });
  t.deepEqual(s.violations ?? [], []);
  t.deepEqual(validateSession(s, { rules: RULES }), []);
});
