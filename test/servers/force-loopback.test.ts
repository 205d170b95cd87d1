import test from 'ava';
import { join } from 'node:path';
import { everythingServer, node, root } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';

const forceLoopback = join(root, 'test', 'servers', 'force-loopback.cjs');

/**
 * Run under the preload: listens in every form net.Server#listen takes without a host, one
 * server at a time, and prints each form with the address the server got (one JSON line each).
 * Port 0 everywhere, so nothing is bound to a fixed port.
 */
const script = (socket: string) => `
const net = require('node:net');
const http = require('node:http');
const forms = {
  'listen("0")': (s, cb) => s.listen('0', cb),
  'listen(0)': (s, cb) => s.listen(0, cb),
  'listen(0, backlog)': (s, cb) => s.listen(0, 16, cb),
  'listen("0", "")': (s, cb) => s.listen('0', '', cb),
  'listen()': (s, cb) => { s.once('listening', cb); s.listen(); },
  'listen(cb)': (s, cb) => s.listen(cb),
  'listen(null, cb)': (s, cb) => s.listen(null, cb),
  'listen(undefined, cb)': (s, cb) => s.listen(undefined, cb),
  'listen({ port: "0" })': (s, cb) => s.listen({ port: '0' }, cb),
  'listen({ port: 0 })': (s, cb) => s.listen({ port: 0 }, cb),
  'listen({ port: undefined })': (s, cb) => s.listen({ port: undefined }, cb),
  'listen({ port: "0", host: "" })': (s, cb) => s.listen({ port: '0', host: '' }, cb),
  'http listen("0")': (_s, cb, make) => make(http.createServer()).listen('0', cb),
  'listen(path)': (s, cb) => s.listen(${JSON.stringify(socket)}, cb),
};
(async () => {
  for (const [form, listen] of Object.entries(forms)) {
    let server = net.createServer();
    await new Promise((resolve) => listen(server, resolve, (other) => (server = other)));
    const a = server.address();
    process.stdout.write(JSON.stringify({ form, address: typeof a === 'string' ? a : a.address, port: a.port }) + '\\n');
    await new Promise((resolve) => server.close(resolve));
  }
})();
`;

test('force-loopback binds every host-less listen form to 127.0.0.1, string ports included, and says where on stderr', async (t) => {
  const socket = join(tempDir(t), 'pipe.sock');
  const child = spawnTracked(t, node, ['--require', forceLoopback, '-e', script(socket)]);
  const done = await collect(child);
  t.is(done.code, 0, done.stderr);
  const results = done.stdout
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { form: string; address: string; port?: number });
  t.is(results.length, 14);
  for (const r of results.filter((x) => x.form !== 'listen(path)')) {
    t.is(r.address, '127.0.0.1', r.form);
    t.true(r.port! > 0, r.form);
  }
  t.deepEqual(results.at(-1), { form: 'listen(path)', address: socket }, 'a pipe path is left alone');
  const reported = [...done.stderr.matchAll(/^force-loopback: listening on (\S+):(\d+)$/gm)].map((m) => `${m[1]}:${m[2]}`);
  t.deepEqual(
    reported,
    results.filter((x) => x.port !== undefined).map((x) => `${x.address}:${x.port}`),
  );
});

test('server-everything in streamableHttp mode, given PORT as a string, listens on 127.0.0.1 only', async (t) => {
  // PORT=0: the kernel picks the port; the preload's line says which, and where it is bound.
  const child = spawnTracked(t, node, ['--require', forceLoopback, everythingServer, 'streamableHttp'], {
    env: { ...process.env, PORT: '0' },
  });
  const text = await waitForOutput(child.stderr!, (s) => /force-loopback: listening on \S+:\d+\n/.test(s), 60_000);
  const [, address, port] = /force-loopback: listening on (\S+):(\d+)\n/.exec(text)!;
  t.is(address, '127.0.0.1');
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'force-loopback-test', version: '1' } },
    }),
  });
  t.is(res.status, 200, 'the server answers on the port it reported');
  await res.body?.cancel();
  child.kill('SIGTERM');
});
