import test from 'ava';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { appendSessions, loadCassette, parseCassette } from '../../lib/cassette/store.js';
import { tempDir } from '../helpers/tmp.js';
import { root } from '../helpers/paths.js';

function session(id: string, startedAt: string): RecordedSession {
  return {
    id,
    transport: 'stdio',
    startedAt,
    target: { command: ['srv'], cwd: '/' },
    protocol: {},
    proxy: { pid: 1, version: 'test' },
    messages: [
      {
        seq: 1,
        t: 0,
        direction: 'client-to-server',
        channel: 'stdin',
        kind: 'request',
        bytes: 40,
        json: { jsonrpc: '2.0', id: 1, method: 'ping' },
      },
    ],
  };
}

test('sessions append in start order, pretty-printed with a stable layout', async (t) => {
  const path = join(tempDir(t), 'a.cassette.json');
  await appendSessions(path, [session('b', '2026-01-01T00:00:02.000Z')]);
  await appendSessions(path, [session('a', '2026-01-01T00:00:01.000Z')]);
  await appendSessions(path, [session('a', '2026-01-01T00:00:01.000Z')]); // same id: not twice
  const text = readFileSync(path, 'utf8');
  t.true(text.startsWith('{\n  "format": "mcp-cassette",\n  "version": 2,\n  "sessions": ['));
  t.true(text.endsWith('}\n'));
  t.deepEqual(
    loadCassette(path).sessions.map((s) => s.id),
    ['a', 'b'],
  );
  await appendSessions(path, [session('c', '2026-01-01T00:00:03.000Z')], { overwrite: true });
  t.deepEqual(
    loadCassette(path).sessions.map((s) => s.id),
    ['c'],
  );
});

test('concurrent writers in one process never lose a session', async (t) => {
  const path = join(tempDir(t), 'b.cassette.json');
  await Promise.all(Array.from({ length: 8 }, (_, i) => appendSessions(path, [session(`s${i}`, `2026-01-01T00:00:0${i}.000Z`)])));
  t.is(loadCassette(path).sessions.length, 8);
});

test('a file that is not JSON gets an error naming the file and is left untouched', async (t) => {
  const path = join(tempDir(t), 'c.cassette.json');
  writeFileSync(path, '{"format": "mcp-cassette", oops');
  const err = await t.throwsAsync(appendSessions(path, [session('x', '2026-01-01T00:00:00.000Z')]));
  t.is((err as { code?: string }).code, 'MCPC_CASSETTE_INVALID');
  t.regex(err!.message, /c\.cassette\.json is not valid JSON/);
  t.regex(err!.message, /nothing was changed/);
  t.is(readFileSync(path, 'utf8'), '{"format": "mcp-cassette", oops');
});

test('a schema problem names the path inside the cassette', (t) => {
  const bad = {
    format: 'mcp-cassette',
    version: 1,
    sessions: [
      {
        ...session('x', '2026-01-01T00:00:00.000Z'),
        messages: [{ seq: 0, t: 0, direction: 'sideways', channel: 'stdin', kind: 'request', bytes: 1, json: {} }],
      },
    ],
  };
  const err = t.throws(() => parseCassette('/x.cassette.json', JSON.stringify(bad)));
  t.is((err as { code?: string }).code, 'MCPC_CASSETTE_INVALID');
  t.regex(err!.message, /\/sessions\/0\/messages\/0\/(seq|direction)/);
});

test('a cassette from a newer format version asks for an upgrade', (t) => {
  const err = t.throws(() => parseCassette('/x.cassette.json', JSON.stringify({ format: 'mcp-cassette', version: 9, sessions: [] })));
  t.is((err as { code?: string }).code, 'MCPC_CASSETTE_TOO_NEW');
  t.regex(err!.message, /version 9.*upgrade mcp-cassette/);
});

test('a missing cassette is its own error', (t) => {
  const err = t.throws(() => loadCassette(join(tempDir(t), 'nope.cassette.json')));
  t.is((err as { code?: string }).code, 'MCPC_CASSETTE_NOT_FOUND');
});

test('a format v1 cassette is migrated on load, and rewritten as v2 when a session is added', async (t) => {
  const v1 = join(root, 'cassettes', 'fixtures', 'format-v1', 'server-everything.cassette.json');
  t.is((JSON.parse(readFileSync(v1, 'utf8')) as { version: number }).version, 1);
  const loaded = loadCassette(v1);
  t.is(loaded.version, 2);
  t.is(loaded.sessions[0]!.transport, 'stdio');
  const path = join(tempDir(t), 'old.cassette.json');
  copyFileSync(v1, path);
  await appendSessions(path, [session('new', '2030-01-01T00:00:00.000Z')]);
  const rewritten = JSON.parse(readFileSync(path, 'utf8')) as { version: number; sessions: { id: string }[] };
  t.is(rewritten.version, 2);
  t.deepEqual(
    rewritten.sessions.map((s) => s.id),
    [loaded.sessions[0]!.id, 'new'],
  );
});
