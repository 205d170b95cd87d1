/**
 * A cassette of a newer minor format (a later release added optional fields to format 2) is read,
 * with one note on stderr, and a command that rewrites it keeps the fields it does not know. A
 * cassette that does not claim a newer minor is still checked closely: an unknown field there is
 * a mistake. Real CLI processes on a real recording.
 */
import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, node, rawServer, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { line, startRecorder, waitForFinishers } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

const example = join(root, 'cassettes', 'examples', 'example-server.cassette.json');

type Doc = Record<string, unknown> & { sessions: (Record<string, unknown> & { messages: Record<string, unknown>[] })[] };

/** The example cassette as a release of format 2.`minor` might write it: one new field at each level. */
function newer(path: string, minor: number | undefined): Doc {
  const doc = JSON.parse(readFileSync(example, 'utf8')) as Doc;
  if (minor !== undefined) doc.minorVersion = minor;
  doc.retention = { keepDays: 30 };
  doc.sessions[0]!.verdictDigest = 'sha256:abc';
  doc.sessions[0]!.messages[0]!.tags = ['first'];
  writeFileSync(path, JSON.stringify(doc, null, 2) + '\n');
  return doc;
}

function run(t: Parameters<typeof tempDir>[0], args: string[]) {
  return collect(spawnTracked(t, node, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
}

test('a newer minor format is read, with one note on stderr', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'newer.cassette.json');
  newer(path, 3);
  const note = `mcp-cassette: note: ${path} is cassette format 2.3, newer than this release's 2.1: read all the same, and the fields it does not know are kept as they are (upgrade mcp-cassette to use them)\n`;
  const show = await run(t, ['show', path]);
  t.is(show.code, 0, show.stderr);
  t.is(show.stderr, note, 'one line');
  t.regex(show.stdout.toString(), /: \d+ sessions?\n/);
  const validate = await run(t, ['validate', path, '--format', 'json']);
  t.is(validate.code, 0, validate.stderr);
  t.is(validate.stderr, note);
});

test('recording into a newer minor cassette keeps the fields this release does not know', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'newer.cassette.json');
  const before = newer(path, 2);
  const rec = startRecorder(t, path, [node, rawServer, 'echo']);
  const done = collect(rec);
  rec.stdin!.end(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  t.is((await done).code, 0);
  waitForFinishers(path);
  const after = JSON.parse(readFileSync(path, 'utf8')) as Doc;
  t.is(after.sessions.length, before.sessions.length + 1, 'the session was added');
  t.is(after.minorVersion, 2);
  t.deepEqual(after.retention, { keepDays: 30 });
  const first = after.sessions.find((s) => s.id === before.sessions[0]!.id)!;
  t.is(first.verdictDigest, 'sha256:abc');
  t.deepEqual(first.messages[0]!.tags, ['first']);
});

test('an unknown field in a cassette that claims no newer minor is still refused, named', async (t) => {
  const dir = tempDir(t);
  for (const minor of [undefined, 0, 1]) {
    const path = join(dir, `same-${minor}.cassette.json`);
    newer(path, minor);
    const r = await run(t, ['show', path]);
    t.is(r.code, 2);
    t.regex(r.stderr, /is not a valid mcp-cassette file: .*must NOT have additional properties \((retention|verdictDigest|tags)\)/);
  }
});
