import test from 'ava';
import { join } from 'node:path';
import { echoSecretsServer, recordStdio } from '../../helpers/capture.js';
import { cli, node } from '../../helpers/paths.js';
import { collect, spawnTracked } from '../../helpers/proc.js';
import { PipeTransport, v2Client } from '../../helpers/real-server.js';
import { tempDir } from '../../helpers/tmp.js';

/**
 * `serve <file> <file>...`: several cassettes served as one, as `validate`, `show` and `replay`
 * read them. Two recordings of the official v2 SDK client and server, each with a call the other
 * lacks; a v2 client through `serve` gets both answers. Record modes need one file.
 */
test('serve takes several cassette files: a client is answered from the sessions of each', async (t) => {
  const dir = tempDir(t);
  const a = join(dir, 'a.cassette.json');
  const b = join(dir, 'b.cassette.json');
  t.is((await recordStdio(t, a, [], async (c) => void (await c.callTool({ name: 'add', arguments: { a: 1, b: 2 } })))).code, 0);
  t.is((await recordStdio(t, b, [], async (c) => void (await c.callTool({ name: 'echo', arguments: { text: 'only in b' } })))).code, 0);
  const serve = spawnTracked(t, node, [cli, 'serve', a, b, '--log-level', 'warn']);
  serve.stderr!.on('data', () => {});
  const client = v2Client();
  await client.connect(new PipeTransport(serve));
  const sum = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
  t.deepEqual(sum.content, [{ type: 'text', text: '3' }], 'from a');
  const echoed = await client.callTool({ name: 'echo', arguments: { text: 'only in b' } });
  t.deepEqual(echoed.content, [{ type: 'text', text: 'you said: only in b' }], 'from b');
  await client.close();
  // A record mode writes into one file: two are a usage error naming the fix.
  const refused = await collect(spawnTracked(t, node, [cli, 'serve', a, b, '--mode', 'all', '--', node, echoSecretsServer]));
  t.is(refused.code, 2);
  t.regex(
    refused.stderr,
    /2 cassettes were given: serve replays several \(record mode none or once\), but record modes write into one cassette file; name one file/,
  );
});
