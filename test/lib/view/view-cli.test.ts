/**
 * `view` from the outside, no browser needed: the URL is the first line on stdout, the token and
 * the Host/Origin guard refuse what they must, and bad input is a CassetteError with its code and
 * exit 2.
 */
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { cli, node, root } from '../../helpers/paths.js';
import { collect, spawnTracked } from '../../helpers/proc.js';
import { tempDir } from '../../helpers/tmp.js';
import { rawGet, startView } from '../../helpers/view.js';

const example = join(root, 'cassettes', 'examples', 'example-server-http.cassette.json');

test('the URL with its token is the first line on stdout; every request needs the token; the Host/Origin guard applies', async (t) => {
  const { url, child, firstLine } = await startView(t, [example]);
  t.regex(firstLine, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{24}$/);
  const token = url.searchParams.get('token')!;
  const at = (path: string, withToken: string | undefined): URL => {
    const u = new URL(path, url);
    if (withToken !== undefined) u.searchParams.set('token', withToken);
    return u;
  };
  for (const path of ['/', '/app.js', '/api/overview', '/api/session', '/api/node', '/api/events']) {
    t.is((await rawGet(at(path, undefined))).status, 401, `${path} without the token`);
    t.is((await rawGet(at(path, 'x'.repeat(token.length)))).status, 401, `${path} with a wrong token`);
  }
  t.is((await rawGet(at('/', token))).status, 200);
  t.is((await rawGet(at('/', token), { host: `evil.example:${url.port}` })).status, 403, 'DNS rebinding: a foreign Host');
  t.is((await rawGet(at('/api/overview', token), { origin: 'http://evil.example' })).status, 403, 'a foreign Origin');
  t.is((await rawGet(at('/api/overview', token), { origin: `http://127.0.0.1:${url.port}` })).status, 200, 'the page itself');

  // The data: an HTTP session with its exchanges, status and headers.
  const overview = JSON.parse((await rawGet(at('/api/overview', token))).body);
  t.is(overview.kind, 'cassette');
  t.true(overview.sessions.length >= 1);
  t.is(overview.sessions[0].transport, 'streamable-http');
  const u = at('/api/session', token);
  u.searchParams.set('i', '0');
  const detail = JSON.parse((await rawGet(u)).body);
  t.true(detail.exchanges.length > 0);
  t.true(detail.exchanges.every((x: { status?: number; requestHeaders: object }) => typeof x.status === 'number' && x.requestHeaders));
  const paired = detail.rows.filter((r: { kind: string; pair?: number }) => r.kind === 'request' && r.pair !== undefined);
  t.true(paired.length > 0 && paired.every((r: { latencyMs?: number }) => typeof r.latencyMs === 'number'));
  t.true(detail.rows.every((r: { exchange?: number }) => typeof r.exchange === 'number'));

  child.kill('SIGTERM');
  const done = await collect(child);
  t.is(done.code, 0);
  t.is(done.stdout.toString('utf8'), '', 'nothing on stdout after the URL');
});

test('bad input: no such file, not a cassette, an address in use: a CassetteError and exit 2', async (t) => {
  const dir = tempDir(t);
  const run = async (args: string[]) => collect(spawnTracked(t, node, [cli, 'view', ...args]));
  const missing = await run([join(dir, 'nope.json')]);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /cannot read .*nope\.json \(no such file or folder\)/);
  t.is(missing.stdout.length, 0);
  const missingCassette = await run([join(dir, 'nope.cassette.json')]);
  t.is(missingCassette.code, 2);
  t.regex(missingCassette.stderr, /cassette .* does not exist/);
  const other = join(dir, 'other.json');
  writeFileSync(other, '{"hello": 1}');
  const notOne = await run([other]);
  t.is(notOne.code, 2);
  t.regex(notOne.stderr, /is neither a cassette .* nor a replay report/);
  t.notRegex(notOne.stderr, /at .*\.js:\d+/, 'no stack trace');
  const emptyDir = await run([dir]);
  t.is(emptyDir.code, 2);
  t.regex(emptyDir.stderr, /holds no cassettes/);

  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.teardown(() => busy.close());
  const port = (busy.address() as { port: number }).port;
  const inUse = await run([example, '--listen', `127.0.0.1:${port}`]);
  t.is(inUse.code, 2);
  t.regex(inUse.stderr, /cannot listen on 127\.0\.0\.1:\d+: the address is already in use/);
  const badListen = await run([example, '--listen', 'nowhere']);
  t.is(badListen.code, 2);
  t.regex(badListen.stderr, /--listen "nowhere" must be host:port/);
});
