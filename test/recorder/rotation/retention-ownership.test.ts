import test from 'ava';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import type { Cassette } from '../../../lib/cassette/cassette.js';
import { firstSessionProxy } from '../../../recorder/rotation/cassette-head.js';
import { DIR_IDENTITY_FILE, ensureDirOwner, WRITER } from '../../../recorder/rotation/ownership.js';
import { echoSecretsServer, startEchoHttp } from '../../helpers/capture.js';
import { node, root } from '../../helpers/paths.js';
import { PipeTransport, v2Client } from '../../helpers/real-server.js';
import { startRecorder } from '../../helpers/recording.js';
import { tempDir } from '../../helpers/tmp.js';
import { cassetteFiles, journalsIn, logLine, readJson, startDirRecorder, until } from './dir-helpers.js';

/**
 * Retention deletes only what the directory's recorders wrote: a cassette named as a rotation is
 * AND stamped as one of this directory's (`proxy.writer`). A person's `weather.cassette.json`
 * (which sorts after every rotation, so it looked like the newest) and a rotation-named file that
 * another writer made are left alone and counted; the recorder's own rotations are pruned by the
 * rules around them. Real recorder processes, the real echo-secrets server (official v2 SDK) and
 * the official v2 client.
 */
const EXAMPLE = readFileSync(join(root, 'cassettes', 'examples', 'example-server.cassette.json'), 'utf8');

/** A valid cassette whose sessions say `record --cassette-dir` wrote them for `owner`. */
function stampedBy(owner: string): string {
  const c = JSON.parse(EXAMPLE) as Cassette;
  for (const s of c.sessions) (s.proxy as Record<string, unknown>).writer = { recorder: WRITER, owner };
  return JSON.stringify(c, null, 2);
}

/** Cassettes this directory's recorders did not write: a person's, one named exactly like a
 * rotation but made by another writer, and one named like a rotation with no writer at all. */
function plantForeign(dir: string): Map<string, string> {
  const files = new Map([
    ['weather.cassette.json', EXAMPLE],
    ['20000101T000000000Z-0a0b0c.cassette.json', stampedBy('another-recorder')],
    ['20000102T000000000Z-0d0e0f.cassette.json', EXAMPLE],
  ]);
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  return files;
}

function untouched(t: import('ava').ExecutionContext, dir: string, planted: Map<string, string>): void {
  for (const [name, text] of planted) t.is(readFileSync(join(dir, name), 'utf8'), text, `${name} is still there, unchanged`);
}

const rotations = (dir: string, planted: Map<string, string>): string[] => cassetteFiles(dir).filter((f) => !planted.has(basename(f)));

test('--keep-files 1 over Streamable HTTP: a hand-made weather.cassette.json and rotation-named files of other writers survive; the rotations are pruned to one', async (t) => {
  const dir = tempDir(t);
  // The directory already has its identity (an earlier run): one rotation of that run, stamped
  // with it, is the recorder's own and goes; a copy of one under a person's name does not.
  const owner = ensureDirOwner(dir);
  const planted = plantForeign(dir);
  planted.set('weather-copy.cassette.json', stampedBy(owner));
  writeFileSync(join(dir, 'weather-copy.cassette.json'), stampedBy(owner));
  const earlier = join(dir, '20000103T000000000Z-aaaaaa.cassette.json');
  writeFileSync(earlier, stampedBy(owner));

  const upstream = await startEchoHttp(t);
  const proxy = await startDirRecorder(t, upstream, dir, ['--rotate-sessions', '1', '--keep-files', '1']);
  const client = v2Client();
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
  for (let n = 0; n < 4; n++) await client.callTool({ name: 'echo', arguments: { text: `call ${n}` } });
  await client.close();
  const end = await proxy.stop();
  t.is(end.code, 0, end.stderr);

  untouched(t, dir, planted);
  const kept = rotations(dir, planted);
  t.is(kept.length, 1, `--keep-files 1: ${kept.map((f) => basename(f)).join(', ')}`);
  t.not(kept[0], earlier, "the earlier run's rotation was pruned");
  t.deepEqual((readJson(kept[0]!).sessions[0]!.proxy as Record<string, unknown>).writer, { recorder: WRITER, owner, replica: hostname() });
  const stopped = logLine(end.stderr, 'recording stopped') as {
    cassettesRotated: number;
    cassettesPruned: number;
    cassettesLeftAlone: number;
  };
  t.true(stopped.cassettesRotated >= 4, `rotated ${stopped.cassettesRotated} times`);
  t.is(stopped.cassettesPruned, stopped.cassettesRotated, 'every rotation but the newest, and the earlier one');
  t.is(stopped.cassettesLeftAlone, 4);
  const said = end.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; files?: number; msg: string })
    .filter((l) => l.msg.includes('left alone by the retention policy'));
  t.true(said.length > 0, end.stderr);
  t.like(said.at(-1), { level: 40, files: 4 });
  t.true(
    said
      .at(-1)!
      .msg.startsWith(`4 files named *.cassette.json in ${dir} were not written by this directory's recorders and were left alone`),
    said.at(-1)!.msg,
  );
});

test('--keep-bytes over stdio (--rotate-size): the foreign cassettes, each bigger than the limit, survive and do not count; one rotation, the last part, is kept', async (t) => {
  const dir = tempDir(t);
  const planted = plantForeign(dir);
  const log = join(tempDir(t), 'record.log');
  const recorder = startRecorder(t, dir, [node, echoSecretsServer], {
    extra: ['--rotate-size', '1KB', '--keep-bytes', '1', '--log-file', log],
    into: '--cassette-dir',
  });
  let stderr = '';
  recorder.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const done = new Promise<number | null>((resolve) => recorder.on('close', (code) => resolve(code)));
  const client = v2Client();
  await client.connect(new PipeTransport(recorder));
  for (let n = 0; n < 6; n++) await client.callTool({ name: 'echo', arguments: { text: `a line long enough to fill a part ${n}` } });
  await client.close();
  t.is(await done, 0, stderr);
  // The last cassette and the policy are applied at the recorder's exit, or by its finisher.
  await until(() => journalsIn(dir).length === 0 && rotations(dir, planted).length === 1, 'the retention policy', 60_000);
  await until(() => readFileSync(log, 'utf8').includes('left alone by the retention policy'), 'the left-alone line', 60_000);
  untouched(t, dir, planted);
  const [kept] = rotations(dir, planted);
  const session = readJson(kept!).sessions[0]!;
  t.regex(session.label ?? '', /^part \d+ of session /, 'a later part: the earlier ones were deleted by --keep-bytes');
  t.is(session.end?.reason, 'exit', 'the newest (last) part is the one kept');
  const owner = (JSON.parse(readFileSync(join(dir, DIR_IDENTITY_FILE), 'utf8')) as { owner: string }).owner;
  t.deepEqual((session.proxy as Record<string, unknown>).writer, { recorder: WRITER, owner, replica: hostname() });
  t.regex(
    readFileSync(log, 'utf8'),
    /3 files named \*\.cassette\.json in \S+ were not written by this directory's recorders and were left alone/,
  );
});

test("the writer is read from the first session's own proxy member, from the head of the file, whatever the layout", (t) => {
  const dir = tempDir(t);
  const write = (name: string, value: unknown, space?: number): string => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value, null, space));
    return path;
  };
  const writer = { recorder: WRITER, owner: 'o' };
  const session = (extra: Record<string, unknown>) => ({ id: 's', clientInfo: { name: 'c', proxy: { writer } }, ...extra, messages: [] });
  const cassette = (s: unknown[]) => ({ format: 'mcp-cassette', version: 2, sessions: s });
  t.deepEqual(firstSessionProxy(write('a', cassette([session({ proxy: { pid: 1, writer } })]), 2)), { pid: 1, writer });
  t.deepEqual(firstSessionProxy(write('b', cassette([session({ proxy: { pid: 2, writer } })]))), { pid: 2, writer }, 'compact JSON');
  t.is(firstSessionProxy(write('c', cassette([session({})]))), undefined, "a proxy key inside clientInfo is not the session's");
  t.is(firstSessionProxy(write('d', cassette([]))), undefined);
  // A first session whose members before `proxy` are larger than one read (a long command line).
  const long = { target: { command: ['x'.repeat(200_000)], cwd: '/' }, proxy: { pid: 3, writer } };
  t.deepEqual(firstSessionProxy(write('e', cassette([session(long)]))), { pid: 3, writer });
  writeFileSync(join(dir, 'f'), '{"format":"mcp-cassette","sessions":[{"id":"s","proxy":{"pid":4');
  t.is(firstSessionProxy(join(dir, 'f')), undefined, 'cut short');
  t.is(firstSessionProxy(join(dir, 'none')), undefined, 'no such file');
});
