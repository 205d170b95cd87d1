import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { echoSecretsServer, recordStdio } from '../../helpers/capture.js';
import { cli, node } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { LEGACY_INIT, rawServe } from './helpers.js';

/**
 * `record --capture hashed` stores each value as `hmac-sha256:<key id>:<hex>:<bytes>`: `serve` and `replay`
 * treat that placeholder as "any value", as they treat `[REDACTED]` (lib/masked-values.ts).
 * Recorded from the official v2 SDK client and server (test/servers/echo-secrets-server.ts).
 */
const run = promisify(execFile);

async function hashedCassette(t: import('ava').ExecutionContext): Promise<string> {
  const path = join(tempDir(t), 'hashed.cassette.json');
  const r = await recordStdio(t, path, ['--capture', 'hashed'], async (client) => {
    await client.callTool({ name: 'echo', arguments: { text: 'the recorded text' } });
  });
  t.is(r.code, 0, r.stderr);
  const call = r.cassette.sessions[0]!.messages.find((m) => (m.json as { method?: string }).method === 'tools/call');
  t.regex(JSON.stringify(call?.json), /"text":"hmac-sha256:[0-9a-f]{8}:[0-9a-f]{64}:17"/, 'the argument is stored hashed');
  return path;
}

test('serve: a hashed value in a recorded request matches any live value there; the names it keeps must still match', async (t) => {
  const path = await hashedCassette(t);
  const serve = rawServe(t, path);
  const init = await serve.request(LEGACY_INIT);
  t.truthy(init.result, JSON.stringify(init));
  serve.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const answer = await serve.request({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'another text, live' } },
  });
  t.regex(
    JSON.stringify(answer.result),
    /"structuredContent":\{"echoed":"hmac-sha256:[0-9a-f]{8}:[0-9a-f]{64}:17"/,
    'the recorded (hashed) answer',
  );
  const other = await serve.request({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } });
  t.is((other.error as { code: number } | undefined)?.code, -32099, 'another tool is still unmatched');
  await serve.end();
});

test('replay: a hashed cassette against the real server is unchanged (hashed values are not compared)', async (t) => {
  const path = await hashedCassette(t);
  const { stdout } = await run(node, [cli, 'replay', path, '--', node, echoSecretsServer]);
  t.regex(stdout, /2 interactions in 1 sessions: 2 unchanged, 0 breaking/);
});
