import test, { type ExecutionContext } from 'ava';
import { join } from 'node:path';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { MASK } from '../../lib/redact.js';
import { filesHolding, PLANTED, recordHttp, recordStdio, startEchoHttp, type Steps } from '../helpers/capture.js';
import { tempDir } from '../helpers/tmp.js';
import { cassettesIn } from '../../lib/cassette/directory.js';

/**
 * Payload redaction before anything reaches the disk, under the official v2 client and a real v2
 * SDK server (test/servers/echo-secrets-server.ts), over stdio and Streamable HTTP: credentials of
 * every well-known shape are planted in tool arguments, and the server says them back in its
 * result, a log notification and on stderr. The client gets every byte as sent; no file the
 * proxy wrote (cassette, log file, journals) holds any of them.
 */
const secrets = Object.values(PLANTED);
const NEEDLES = [...secrets.map((s) => s.needle), '98765', 'diary-entry'];
const REDACT = ['--redact-path', '/params/arguments/note', '--redact-value', 'cust-(\\d+)'];

const steps =
  (echoed: string[]): Steps =>
  async (client) => {
    for (const s of secrets) {
      const text = `value ${s.text} end`;
      const r = await client.callTool({ name: 'echo', arguments: { text, note: 'my diary-entry' } });
      echoed.push((r.structuredContent as { echoed: string }).echoed === text ? 'same' : 'changed');
    }
    const r = await client.callTool({ name: 'echo', arguments: { text: 'order for cust-98765' } });
    echoed.push((r.structuredContent as { echoed: string }).echoed === 'order for cust-98765' ? 'same' : 'changed');
  };

function echoCalls(cassette: Cassette): Record<string, unknown>[] {
  return cassette.sessions
    .flatMap((s) => s.messages)
    .map((m) => m.json as Record<string, unknown>)
    .filter((j) => j?.method === 'tools/call');
}

function assertRedacted(t: ExecutionContext, dir: string, cassette: Cassette, echoed: string[]): void {
  t.deepEqual(echoed, Array(secrets.length + 1).fill('same'), 'the client got back exactly what it sent');
  t.deepEqual(filesHolding(dir, NEEDLES), [], 'no file the proxy wrote holds a planted secret');
  const calls = echoCalls(cassette);
  t.is(calls.length, secrets.length + 1);
  const args = (calls[0]!.params as { arguments: { text: string; note: string } }).arguments;
  t.is(args.note, MASK, '--redact-path masks the value at the pointer');
  t.is(args.text, 'value Bearer [REDACTED] end', 'a bearer token: masked in the string, with its scheme');
  t.is(
    (calls[calls.length - 1]!.params as { arguments: { text: string } }).arguments.text,
    'order for cust-[REDACTED]',
    '--redact-value masks its group',
  );
  const results = JSON.stringify(cassette.sessions.flatMap((s) => s.messages.filter((m) => m.direction === 'server-to-client')));
  t.true(results.includes(`you said: value Bearer ${MASK} end`), 'results are masked too');
  t.true(results.includes('notifications/message'), 'the log notifications are recorded');
}

test('stdio: planted credentials in arguments, results, log notifications and stderr never reach a file', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'secrets.cassette.json');
  const echoed: string[] = [];
  const r = await recordStdio(t, cassette, [...REDACT, '--log-file', join(dir, 'proxy.log'), '--log-level', 'debug'], steps(echoed));
  t.is(r.code, 0, r.stderr);
  assertRedacted(t, dir, r.cassette, echoed);
  const stderr = r.cassette.sessions[0]!.messages.filter((m) => m.channel === 'stderr');
  t.true(stderr.length >= secrets.length, 'the server stderr lines are recorded');
});

test('stdio into --cassette-dir with rotation: no cassette of the series and no journal holds a planted credential', async (t) => {
  const dir = tempDir(t);
  const series = join(dir, 'series');
  const echoed: string[] = [];
  const r = await recordStdio(
    t,
    series,
    [...REDACT, '--rotate-size', '2KB', '--log-file', join(dir, 'proxy.log')],
    steps(echoed),
    '--cassette-dir',
  );
  t.is(r.code, 0, r.stderr);
  t.true(cassettesIn(series).length >= 2, 'the session was cut into several cassettes');
  assertRedacted(t, dir, r.cassette, echoed);
});

test('Streamable HTTP: planted credentials in arguments, results and logs never reach a file', async (t) => {
  const dir = tempDir(t);
  const upstream = await startEchoHttp(t);
  const echoed: string[] = [];
  const r = await recordHttp(
    t,
    upstream,
    join(dir, 'secrets.cassette.json'),
    [...REDACT, '--log-file', join(dir, 'proxy.log')],
    steps(echoed),
  );
  t.is(r.code, 0, r.stderr);
  assertRedacted(t, dir, r.cassette, echoed);
});

test('--no-redact-secrets keeps the credentials (and only the secret shapes are on by default)', async (t) => {
  const dir = tempDir(t);
  const echoed: string[] = [];
  const r = await recordStdio(t, join(dir, 'kept.cassette.json'), ['--no-redact-secrets'], steps(echoed));
  t.is(r.code, 0, r.stderr);
  const hits = filesHolding(dir, NEEDLES);
  for (const s of secrets) t.true(hits.includes(`kept.cassette.json: ${s.needle}`), `${s.needle} kept`);
});
