import test from 'ava';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { StdioTarget } from '../../lib/cassette/cassette.js';
import { echoSecretsServer, filesHolding, PLANTED, startEchoHttpSeeingHeaders } from '../helpers/capture.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { cli, node } from '../helpers/paths.js';
import { PipeTransport, v2Client } from '../helpers/real-server.js';
import { readCassette, startRecorder } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * End-to-end tests of the redaction paths that existed before payload redaction, under the v2
 * client and a real v2 SDK server that logs the credential headers it receives: X-Api-Key
 * masking, `--redact-arg` through the CLI, and `replay --header` with recorded headers the
 * cassette holds masked, which are never sent. (`--redact-header` kept through `replay --update`:
 * test/replay/update.test.ts.)
 */
const run = promisify(execFile);
const API_KEY = 'apikey-planted-0123456789';
const TOKEN = 'oauth-planted-abcdefghij';

async function recordWithHeaders(t: Parameters<typeof tempDir>[0], dir: string) {
  const server = await startEchoHttpSeeingHeaders(t);
  const path = join(dir, 'headers.cassette.json');
  const recorder = await startHttpRecorder(t, server.url, path);
  const client = v2Client();
  const headers = { 'x-api-key': API_KEY, authorization: `Bearer ${TOKEN}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(recorder.url), { requestInit: { headers } }));
  await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
  await client.close();
  const { cassette, result } = await recorder.stop();
  return { server, path, cassette, result };
}

test('X-Api-Key and Authorization reach the server but no file: the cassette holds them masked', async (t) => {
  const dir = tempDir(t);
  const { server, cassette, result } = await recordWithHeaders(t, dir);
  t.is(result.code, 0, result.stderr);
  const seen = server.seen();
  t.true(seen.length >= 3);
  t.true(
    seen.every((h) => h['x-api-key'] === API_KEY && h.authorization === `Bearer ${TOKEN}`),
    'forwarded untouched',
  );
  t.deepEqual(filesHolding(dir, [API_KEY, TOKEN]), []);
  const recorded = cassette.sessions.flatMap((s) => s.exchanges ?? []).map((x) => x.requestHeaders);
  t.true(recorded.length >= 3);
  for (const h of recorded) {
    t.is(h['x-api-key'], '[REDACTED]');
    t.is(h.authorization, 'Bearer [REDACTED]');
  }
});

test('replay --header sends the given credential; the redacted recorded ones are never sent', async (t) => {
  const dir = tempDir(t);
  const { path } = await recordWithHeaders(t, dir);
  const target = await startEchoHttpSeeingHeaders(t);
  const live = `Bearer live-${TOKEN}`;
  const withHeader = await run(node, [cli, 'replay', path, '--url', target.url, '--header', `Authorization: ${live}`], {
    encoding: 'utf8',
  }).catch((e: { stdout: string; stderr: string; code: number }) => e);
  t.is((withHeader as { code?: number }).code ?? 0, 0, JSON.stringify(withHeader));
  const first = target.seen();
  t.true(first.length >= 3, 'the session was replayed');
  t.true(
    first.every((h) => h.authorization === live && h['x-api-key'] === null),
    'the given Authorization on every request; the masked X-Api-Key never',
  );
  const without = await run(node, [cli, 'replay', path, '--url', target.url], { encoding: 'utf8' }).catch((e: { stdout: string }) => e);
  const second = target.seen().slice(first.length);
  t.true(second.length >= 3);
  t.true(
    second.every((h) => h.authorization === null && h['x-api-key'] === null),
    'no masked value is ever sent as a credential',
  );
  t.regex(
    (without as { stdout: string }).stdout,
    /recorded headers not replayed because the cassette holds them redacted: (authorization, x-api-key|x-api-key, authorization)/,
  );
});

test('--redact-arg through the CLI masks a server argument in the cassette, with the default masking of secret-named flags and key shapes', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'args.cassette.json');
  const extra = ['--redact-arg', '^acme(\\d+)$', '--log-file', join(dir, 'proxy.log')];
  const child = startRecorder(t, path, [node, echoSecretsServer, '--tenant=acme4242', '--token', 'tok-planted-777', PLANTED.sk.text], {
    extra,
  });
  const client = v2Client();
  await client.connect(new PipeTransport(child));
  await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
  await client.close();
  const cassette = readCassette(path);
  const command = (cassette.sessions[0]!.target as StdioTarget).command;
  t.deepEqual(command.slice(2), ['--tenant=acme[REDACTED]', '--token', '[REDACTED]', '[REDACTED]']);
  t.deepEqual(filesHolding(dir, ['acme4242', 'tok-planted-777', PLANTED.sk.needle]), []);
});

test('a token in the query of the upstream URL is masked in the cassette, its listen URL and request paths', async (t) => {
  const dir = tempDir(t);
  const server = await startEchoHttpSeeingHeaders(t);
  const upstream = `${server.url}?api_key=urlkey-planted-0123`;
  const recorder = await startHttpRecorder(t, upstream, join(dir, 'url.cassette.json'));
  const client = v2Client();
  await client.connect(new StreamableHTTPClientTransport(new URL(recorder.url)));
  await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
  await client.close();
  const { cassette, result } = await recorder.stop();
  t.is(result.code, 0, result.stderr);
  t.is((cassette.sessions[0]!.target as { url: string }).url, `${server.url}?api_key=%5BREDACTED%5D`);
  t.deepEqual(filesHolding(dir, ['urlkey-planted']), []);
});
