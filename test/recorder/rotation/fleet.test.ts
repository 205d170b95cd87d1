import test from 'ava';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadCassette } from '../../../lib/cassette/store.js';
import { ROTATION_NAME } from '../../../recorder/rotation/journal-file.js';
import { startTappedUpstream } from '../../helpers/http-taps.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';
import { root } from '../../helpers/paths.js';
import { collect } from '../../helpers/proc.js';
import { v2Client } from '../../helpers/real-server.js';
import { tempDir } from '../../helpers/tmp.js';
import { cassetteFiles, cli, journalsIn, node, spawnTracked, startDirRecorder, type DirRecorder } from './dir-helpers.js';

/**
 * Many replicas, one --cassette-dir: four real recorder processes (Streamable HTTP, in front of
 * the real v1 SDK's sessionful server, official v2 SDK client) write one directory with rotation
 * (--rotate-sessions 1: every session after the first rotates) and the fleet's retention
 * (--keep-files), while one of them is killed with SIGKILL right after its third rotation, with
 * the fold of the file it closed under way. Every session the clients made is accounted for: in a
 * cassette that is still there (read back whole), or in one the retention policy deleted (the
 * deleting replica's log says how many sessions it held). None is lost, none half-written, none
 * in two cassettes, none deleted twice, the newest --keep-files of the fleet's cassettes are the
 * ones kept, and a person's cassette in the directory is left as it was.
 */

interface LogLine {
  msg: string;
  cassette?: string;
  sessions?: number;
  messages?: number;
  cassettes?: { cassette: string; sessions: number; messages: number }[];
  cassettesPruned?: number;
}

const lines = (stderr: string): LogLine[] =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as LogLine];
      } catch {
        return [];
      }
    });

/** Which call each session of a cassette made (`add` with a: replica, b: session), one entry per
 * session: none for a session cut before its call. */
function sessionTexts(path: string): string[][] {
  return loadCassette(path).sessions.map((s) => [
    ...new Set([...JSON.stringify(s.messages).matchAll(/"arguments":\{"a":(\d+),"b":(\d+)\}/g)].map((m) => `r${m[1]}-s${m[2]}`)),
  ]);
}

/** The v1 SDK's sessionful server (Mcp-Session-Id): one client connection is one session. */
const sessionfulUpstream = async (t: import('ava').ExecutionContext): Promise<string> =>
  (await startTappedUpstream(t, v1SessionfulHandler())).url;

const KEEP = 4;
const SESSIONS = 4;

test('4 recorders on one directory, rotation and fleet retention, one SIGKILLed mid-rotation: every session kept or pruned by the rules, none lost, half-written or deleted twice', async (t) => {
  const dir = tempDir(t);
  const weather = readFileSync(join(root, 'cassettes', 'examples', 'example-server.cassette.json'), 'utf8');
  writeFileSync(join(dir, 'weather.cassette.json'), weather);
  const upstream = await sessionfulUpstream(t);
  const recorders: DirRecorder[] = [];
  for (let r = 0; r < 4; r++)
    recorders.push(
      await startDirRecorder(t, upstream, dir, ['--rotate-sessions', '1', '--keep-files', String(KEEP), '--replica', `replica-${r}`]),
    );
  const killed = 3;
  let made = 0;
  const drive = async (r: number): Promise<void> => {
    for (let s = 0; s < SESSIONS; s++) {
      const client = v2Client();
      await client.connect(new StreamableHTTPClientTransport(new URL(recorders[r]!.url)));
      made += 1;
      if (r === killed && s === 2) {
        // The initialize of this session rotated: the file before it is being folded now.
        recorders[r]!.child.kill('SIGKILL');
        await recorders[r]!.finished;
        await client.close().catch(() => undefined);
        return;
      }
      await client.callTool({ name: 'add', arguments: { a: r, b: s } });
      await client.close();
    }
  };
  await Promise.all([0, 1, 2, 3].map(drive));
  t.is(made, 4 * SESSIONS - 1, 'the killed replica began 3 sessions, the others 4 each');
  const ends = await Promise.all(recorders.filter((_, r) => r !== killed).map((p) => p.stop()));
  for (const e of ends) t.is(e.code, 0, e.stderr);

  // The retention policy as the fleet left it, before the dead replica's journal is recovered.
  const logs = recorders.map((p) => lines(p.stderr()));
  const pruned = logs.flatMap((l) => l.filter((x) => x.msg === 'cassette deleted by the retention policy').map((x) => x.cassette!));
  t.is(new Set(pruned).size, pruned.length, 'no cassette is deleted twice');
  t.is(
    ends.reduce((n, e) => n + ((lines(e.stderr).find((x) => x.msg === 'recording stopped')?.cassettesPruned as number) ?? 0), 0) +
      logs[killed]!.filter((x) => x.msg === 'cassette deleted by the retention policy').length,
    pruned.length,
    'each replica counts only the deletes that were its own',
  );
  for (const p of pruned) t.false(existsSync(p), `${basename(p)} is gone`);
  const open = new Set(journalsIn(dir).map((j) => j.replace(/^\.(.+\.cassette\.json)\..+\.journal$/, '$1')));
  const closed = cassetteFiles(dir).filter((f) => ROTATION_NAME.test(basename(f)) && !open.has(basename(f)));
  t.deepEqual(
    closed.map((f) => basename(f)),
    [...closed, ...pruned]
      .map((f) => basename(f))
      .sort()
      .slice(-KEEP),
    `the ${KEEP} newest of the fleet's closed cassettes are kept, the older ones pruned`,
  );
  t.true(pruned.length > 0, 'retention pruned the older cassettes');

  // The killed replica's journal (its recorder is gone) becomes its cassette.
  const recover = await collect(spawnTracked(t, node, [cli, 'recover', dir]));
  t.is(recover.code, 0, recover.stderr);
  t.deepEqual(journalsIn(dir), [], 'no journal is left');
  t.is(readFileSync(join(dir, 'weather.cassette.json'), 'utf8'), weather, "a person's cassette is left as it was");

  // Every cassette left is whole; with what the deleted ones held (their replica's log says), every
  // message of every session made is there once. A session is 5 messages (initialize and its
  // result, initialized, the call and its result); the one cut by the SIGKILL got its initialize
  // answered (2), perhaps its initialized notification sent too (3).
  const kept = cassetteFiles(dir).filter((f) => ROTATION_NAME.test(basename(f)));
  const keptSessions = kept.flatMap((f) => loadCassette(f).sessions).filter((s) => s.messages.length > 0);
  const texts = kept.flatMap(sessionTexts).flat();
  t.is(new Set(texts).size, texts.length, 'no session is in two cassettes');
  const cutShort = keptSessions.filter((s) => s.messages.length !== 5);
  t.true(cutShort.length <= 1, 'only the session the SIGKILL cut has fewer than 5 messages');
  for (const s of cutShort) t.like(s.messages[0], { direction: 'client-to-server', json: { method: 'initialize' } });
  const messagesOf = new Map<string, number>();
  for (const l of logs.flat()) {
    if (l.msg === 'cassette closed') messagesOf.set(l.cassette!, l.messages!);
    for (const c of l.cassettes ?? []) messagesOf.set(c.cassette, c.messages);
  }
  const prunedMessages = pruned.reduce((n, p) => {
    t.true(messagesOf.has(p), `the log says what ${basename(p)} held`);
    return n + (messagesOf.get(p) ?? 0);
  }, 0);
  const keptMessages = keptSessions.reduce((n, s) => n + s.messages.length, 0);
  const cut = keptMessages + prunedMessages - 5 * (made - 1);
  t.true(
    cut === 2 || cut === 3,
    `${keptMessages} messages kept + ${prunedMessages} pruned: 5 for each of ${made - 1} sessions, and ${cut} of the cut one`,
  );
  for (const f of kept)
    t.regex(basename(f), /^\d{8}T\d{9}Z-replica-\d-\d+-[0-9a-f]{6}\.cassette\.json$/, 'named by time, replica and process');
});

test("--keep-scope replica: each replica keeps its own newest --keep-files and never counts or deletes another replica's", async (t) => {
  const dir = tempDir(t);
  const upstream = await sessionfulUpstream(t);
  const a = await startDirRecorder(t, upstream, dir, [
    '--rotate-sessions',
    '1',
    '--keep-files',
    '1',
    '--keep-scope',
    'replica',
    '--replica',
    'a',
  ]);
  const b = await startDirRecorder(t, upstream, dir, [
    '--rotate-sessions',
    '1',
    '--keep-files',
    '2',
    '--keep-scope',
    'replica',
    '--replica',
    'b',
  ]);
  const sessions = async (p: DirRecorder, name: string): Promise<void> => {
    for (let s = 0; s < 3; s++) {
      const client = v2Client();
      await client.connect(new StreamableHTTPClientTransport(new URL(p.url)));
      await client.callTool({ name: 'add', arguments: { a: name === 'a' ? 0 : 1, b: s } });
      await client.close();
    }
  };
  await Promise.all([sessions(a, 'a'), sessions(b, 'b')]);
  for (const e of await Promise.all([a.stop(), b.stop()])) {
    t.is(e.code, 0, e.stderr);
    t.notRegex(e.stderr, /left alone by the retention policy/, "another replica's cassettes are not a stranger's");
  }
  const by = (tag: string) => cassetteFiles(dir).filter((f) => basename(f).includes(`Z-${tag}-`));
  t.is(by('a').length, 1, 'replica a keeps its newest one');
  t.is(by('b').length, 2, 'replica b keeps its newest two');
  // A session's GET stream that was still open at a rotation goes on in the next cassette (an
  // exchange without messages): only the sessions with messages are compared.
  const calls = (f: string) => sessionTexts(f).filter((x) => x.length > 0);
  t.deepEqual(calls(by('a')[0]!), [['r0-s2']]);
  t.deepEqual(by('b').flatMap(calls), [['r1-s1'], ['r1-s2']]);
});
