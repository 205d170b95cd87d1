import test from 'ava';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { CAPTURE_META } from '../../recorder/capture/capture-level.js';
import { HASH_KEY_FILE } from '../../recorder/capture/hash-key.js';
import { filesHolding, recordHttp, recordStdio, startEchoHttp } from '../helpers/capture.js';
import { journalHolds } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * `--capture metadata|hashed` under the official v2 client and a real v2 SDK server: what the
 * cassette keeps of each message, and that the live validator judged the full traffic before
 * the values were dropped (a violation about an error message the cassette no longer holds).
 */
type Json = Record<string, any>;

const jsonOf = (c: Cassette): Json[] => c.sessions.flatMap((s) => s.messages.map((m) => m.json as Json)).filter(Boolean);
const answerTo = (c: Cassette, method: string): Json[] => {
  const all = jsonOf(c);
  const ids = new Set(all.filter((j) => j.method === method).map((j) => JSON.stringify(j.id)));
  return all.filter((j) => j.method === undefined && ids.has(JSON.stringify(j.id)));
};

test('stdio --capture metadata: methods, ids, tool names, sizes and verdicts; no argument or result values', async (t) => {
  const dir = tempDir(t);
  const r = await recordStdio(
    t,
    join(dir, 'meta.cassette.json'),
    ['--capture', 'metadata', '--log-file', join(dir, 'proxy.log')],
    async (client) => {
      await client.callTool({ name: 'echo', arguments: { text: 'metadata-needle-1' } });
      await client.listTools();
      // Arguments that are no object: refused by the server with a long, multi-line message that
      // quotes them (ENV-ERR-MSG).
      await client.callTool({ name: 'add', arguments: 'metadata-needle-2' as never }).catch(() => {});
      // The live verdicts come from a worker thread that may still be loading on a busy machine.
      await journalHolds(dir, '"ENV-ERR-MSG"');
    },
  );
  t.is(r.code, 0, r.stderr);
  t.deepEqual(filesHolding(dir, ['metadata-needle']), [], 'no value reached a file');
  const calls = jsonOf(r.cassette).filter((j) => j.method === 'tools/call');
  t.deepEqual(
    calls.map((c) => c.params.name),
    ['echo', 'add'],
  );
  const marker = calls[0]!.params._meta[CAPTURE_META];
  t.is(marker.level, 'metadata');
  t.true(marker.bytes > JSON.stringify({ text: 'metadata-needle-1' }).length, 'the size of the frame as it crossed the proxy');
  t.false('arguments' in calls[0]!.params);
  const list = answerTo(r.cassette, 'tools/list')[0]!;
  t.deepEqual(list.result.tools, [{ name: 'echo' }, { name: 'add' }], 'tool names, no descriptions or schemas');
  const refused = answerTo(r.cassette, 'tools/call').find((j) => j.error);
  t.is(refused?.error.code, -32602, 'the status (error code) is kept');
  t.is(refused?.error.message, '', 'its message is not');
  const verdicts = r.cassette.sessions[0]!.violations ?? [];
  t.true(
    verdicts.some((v) => v.rule === 'ENV-ERR-MSG' && v.path === '/error/message'),
    'the live validator judged the message the cassette no longer holds',
  );
  t.true(
    jsonOf(r.cassette).some((j) => j.result?.serverInfo?.name === 'echo-secrets'),
    'the handshake is kept',
  );
});

test('HTTP --capture hashed: each value as its keyed hash (HMAC-SHA-256 under the folder key) and size, so equal payloads are found', async (t) => {
  const dir = tempDir(t);
  const upstream = await startEchoHttp(t);
  const r = await recordHttp(t, upstream, join(dir, 'hashed.cassette.json'), ['--capture', 'hashed'], async (client) => {
    await client.callTool({ name: 'echo', arguments: { text: 'hash-needle-2' } });
    await client.callTool({ name: 'echo', arguments: { text: 'hash-needle-2' } });
    await client.callTool({ name: 'echo', arguments: { text: 'something else' } });
  });
  t.is(r.code, 0, r.stderr);
  t.deepEqual(filesHolding(dir, ['hash-needle']), [], 'no value reached a file');
  const key = Buffer.from(readFileSync(join(dir, HASH_KEY_FILE), 'utf8').trim(), 'hex');
  const hmac = (s: string): string => createHmac('sha256', key).update(s).digest('hex');
  const calls = jsonOf(r.cassette).filter((j) => j.method === 'tools/call');
  const id = String(calls[0]!.params.arguments.text).split(':')[1];
  const placeholder = `hmac-sha256:${id}:${hmac('hash-needle-2')}:13`;
  t.deepEqual(
    calls.map((c) => [c.params.name, c.params.arguments.text]),
    [
      ['echo', placeholder],
      ['echo', placeholder],
      ['echo', `hmac-sha256:${id}:${hmac('something else')}:14`],
    ],
  );
  t.regex(calls[0]!.params._meta[CAPTURE_META].hash, /^hmac-sha256:[0-9a-f]{8}:[0-9a-f]{64}:\d+$/);
  t.is(calls[0]!.params._meta[CAPTURE_META].hash, calls[1]!.params._meta[CAPTURE_META].hash, 'equal params, equal hash');
  t.not(calls[0]!.params._meta[CAPTURE_META].hash, calls[2]!.params._meta[CAPTURE_META].hash);
  const echoed = answerTo(r.cassette, 'tools/call').map((j) => j.result.structuredContent.echoed);
  t.deepEqual(echoed.slice(0, 2), [placeholder, placeholder], "the answer's value is found equal to the argument it echoes");
  t.is(answerTo(r.cassette, 'tools/call')[0]!.result.isError, undefined);
});
