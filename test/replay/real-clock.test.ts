/**
 * The reference servers from node_modules print clock values the way real servers do:
 * server-filesystem's get_file_info prints file times with Date.toString, server-everything's
 * dynamic resources print toLocaleTimeString, once as text and once inside a base64 blob. Each is
 * recorded through `mcp-cassette record` with the v2 SDK client, then replayed against the same
 * build after its output moved on: the file's times are changed with utimes, and the replayed
 * server runs in another time zone (TZ), so every printed time differs from the recorded one
 * whatever the wall clock does. The built-in normalisers alone must make that a pass.
 */
import test from 'ava';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { appendFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReplayResult } from '../../replay/index.js';
import { cli, everythingServer, node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

const filesystemServer = join(root, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

/** Records one session of `server` through the real proxy, the client running `calls`, with TZ=UTC. */
async function record(cassette: string, server: string[], calls: (client: Client) => Promise<void>): Promise<void> {
  const client = new Client({ name: 'clock-test-client', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  const transport = new StdioClientTransport({
    command: node,
    args: [cli, 'record', '--log-level', 'warn', '--cassette', cassette, '--', ...server],
    env: { ...process.env, TZ: 'UTC' } as Record<string, string>,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => {});
  await client.connect(transport);
  try {
    await calls(client);
  } finally {
    await client.close();
  }
  await waitForSessions(cassette, 1);
}

/** `mcp-cassette replay` in a time zone 5:30 away from the recording's; its exit code and JSON report. */
async function replay(
  t: import('ava').ExecutionContext,
  dir: string,
  cassette: string,
  server: string[],
): Promise<{ code: number | null; report: ReplayResult; stdout: string }> {
  const report = join(dir, `report-${Math.random().toString(36).slice(2)}.json`);
  const child = spawnTracked(t, node, [cli, 'replay', cassette, '--report', `json=${report}`, '--', ...server], {
    cwd: dir,
    env: { ...process.env, TZ: 'Asia/Kolkata' },
  });
  const done = await collect(child);
  return { code: done.code, report: JSON.parse(readFileSync(report, 'utf8')) as ReplayResult, stdout: done.stdout.toString('utf8') };
}

const differences = (r: ReplayResult) => r.sessions.flatMap((s) => s.interactions.flatMap((i) => i.differences));

test('server-filesystem: get_file_info after the file times changed and in another time zone replays with no difference', async (t) => {
  const dir = tempDir(t, 'mcp-cassette-clock-fs-');
  const allowed = join(dir, 'allowed');
  const cassettes = join(dir, 'cassettes');
  mkdirSync(allowed);
  mkdirSync(cassettes);
  const file = join(allowed, 'notes.txt');
  writeFileSync(file, 'hello');
  utimesSync(file, new Date('2026-01-02T03:04:05Z'), new Date('2026-01-02T03:04:05Z'));
  const cassette = join(cassettes, 'fs.cassette.json');
  const server = [node, filesystemServer, allowed];
  await record(cassette, server, async (client) => {
    await client.listTools();
    await client.callTool({ name: 'get_file_info', arguments: { path: file } });
  });
  // What the recording holds: Date.toString times, in UTC.
  t.regex(readFileSync(cassette, 'utf8'), /modified: Fri Jan 02 2026 03:04:05 GMT\+0000 \(Coordinated Universal Time\)/);

  // The file is touched: new access and modification times.
  utimesSync(file, new Date('2027-06-07T08:09:10Z'), new Date('2027-06-07T08:09:10Z'));
  const same = await replay(t, dir, cassette, server);
  t.deepEqual(differences(same.report), [], same.stdout);
  t.is(same.report.outcome, 'passed');
  t.is(same.code, 0);

  // A real change next to the times still shows, and only it: the size line.
  appendFileSync(file, ' world');
  const changed = await replay(t, dir, cassette, server);
  const ds = differences(changed.report);
  t.true(ds.length > 0, changed.stdout);
  for (const d of ds) {
    t.regex(String(d.recorded), /size: 5\n/);
    t.regex(String(d.live), /size: 11\n/);
    t.regex(String(d.live), /modified: <js-date>/);
  }
});

test('server-everything: dynamic text and base64 blob resources stamped with toLocaleTimeString replay with no difference', async (t) => {
  const dir = tempDir(t, 'mcp-cassette-clock-everything-');
  const cassette = join(dir, 'everything.cassette.json');
  const server = [node, everythingServer, 'stdio'];
  await record(cassette, server, async (client) => {
    await client.readResource({ uri: 'demo://resource/dynamic/text/1' });
    await client.readResource({ uri: 'demo://resource/dynamic/blob/2' });
    await client.callTool({ name: 'get-resource-reference', arguments: { resourceType: 'Blob', resourceId: 3 } });
  });
  const recorded = readFileSync(cassette, 'utf8');
  t.regex(recorded, /plaintext resource created at \d{1,2}:\d{2}:\d{2}/);
  const r = await replay(t, dir, cassette, server);
  t.deepEqual(differences(r.report), [], r.stdout);
  t.is(r.report.outcome, 'passed');
  t.is(r.code, 0);
  t.true(r.report.summary.same >= 3);
});
