/**
 * Calibration cannot hide a break on stateful servers (issue 30): the official filesystem and
 * memory servers keep their data between runs, so a calibration run without a reset starts from
 * the state the recording left. What then differs (move_file now fails, the knowledge graph grew)
 * is state, not volatility: it is printed as such and never stored, so a later replay still
 * reports it. With `--reset <command>` every run starts from the recording's state, and nothing
 * is learned because nothing varies.
 */
import test, { type ExecutionContext } from 'ava';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadCassette } from '../../lib/cassette/store.js';
import type { ReplayResult } from '../../replay/index.js';
import { cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { recordSdkSession } from '../helpers/sdk-recording.js';
import { tempDir } from '../helpers/tmp.js';

const filesystem = join(root, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const memory = join(root, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');

/** A shell command that puts `dir` back to its starting files (what a user passes to --reset). */
function resetCommand(script: string): string {
  return `${JSON.stringify(node)} -e ${JSON.stringify(script)}`;
}

/** Records a v1 SDK client session through `record`; resolves the cassette's path. */
async function record(
  t: ExecutionContext,
  server: string[],
  env: Record<string, string>,
  steps: (c: Client) => Promise<void>,
): Promise<string> {
  const { dir } = await recordSdkSession(t, server, steps, { env: () => env });
  return join(dir, 'real.cassette.json');
}

async function replay(t: ExecutionContext, args: string[], env: Record<string, string> = {}) {
  const report = join(tempDir(t), `report-${Math.random().toString(36).slice(2)}.json`);
  const end = args.indexOf('--');
  const child = spawnTracked(
    t,
    node,
    [cli, 'replay', '--no-progress', ...args.slice(0, end), '--report', `json=${report}`, ...args.slice(end)],
    { env: { ...process.env, ...env } },
  );
  const done = await collect(child);
  const out = done.stdout.toString('utf8') + done.stderr;
  return { code: done.code, out, report: existsSync(report) ? (JSON.parse(readFileSync(report, 'utf8')) as ReplayResult) : undefined };
}

const learnedFor = (cassette: string) =>
  Object.values(loadCassette(cassette).calibration?.sessions ?? {}).flatMap((entries) =>
    Object.values(entries).map((e) => `${e.method} ${e.name ?? ''}`),
  );

test('filesystem: without --reset, move_file failing on the second run is not volatility and is not stored; a later replay still reports it; with --reset nothing is learned', async (t) => {
  const dir = tempDir(t);
  const ws = join(dir, 'ws');
  const fresh = `const fs=require('fs');fs.rmSync(${JSON.stringify(ws)},{recursive:true,force:true});fs.mkdirSync(${JSON.stringify(ws)},{recursive:true});fs.writeFileSync(${JSON.stringify(join(ws, 'a.txt'))},'alpha\\n')`;
  const reset = () => {
    rmSync(ws, { recursive: true, force: true });
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'a.txt'), 'alpha\n');
  };
  reset();
  const server = [node, filesystem, ws];
  const cassette = await record(t, server, {}, async (c) => {
    await c.callTool({ name: 'move_file', arguments: { source: join(ws, 'a.txt'), destination: join(ws, 'b.txt') } });
    await c.callTool({ name: 'read_text_file', arguments: { path: join(ws, 'b.txt') } });
    await c.callTool({ name: 'list_directory', arguments: { path: ws } });
  });

  // No reset: the first run starts where the recording ended (b.txt, no a.txt).
  const bad = await replay(t, ['--calibrate', cassette, '--', ...server]);
  t.is(bad.code, 0, bad.out);
  t.regex(bad.out, /NOT VOLATILITY \(not stored\)/);
  t.regex(bad.out, /#\d+ tools\/call move_file: tool-call-is-error/);
  t.false(learnedFor(cassette).includes('tools/call move_file'), bad.out);
  t.deepEqual(learnedFor(cassette), [], 'nothing else varied either');
  // The failure it saw is still a failure for the next replay, from the recording's state.
  reset();
  writeFileSync(join(ws, 'b.txt'), 'in the way\n');
  const after = await replay(t, [cassette, '--', ...server]);
  t.is(after.code, 1, after.out);
  t.regex(after.out, /tool-call-is-error/);

  // With --reset every run starts from the recording's state: nothing varies, nothing is learned.
  const good = await replay(t, ['--calibrate', '--reset', resetCommand(fresh), cassette, '--', ...server]);
  t.is(good.code, 0, good.out);
  t.notRegex(good.out, /NOT VOLATILITY/);
  t.deepEqual(learnedFor(cassette), []);
  const again = await replay(t, ['--reset', resetCommand(fresh), cassette, '--', ...server]);
  t.is(again.code, 0, again.out);
  t.is(again.report?.outcome, 'passed');
});

test('memory: a knowledge graph that grew between runs is state, not volatility: nothing stored for read_graph and search_nodes', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'memory.jsonl');
  const env = { MEMORY_FILE_PATH: file };
  const server = [node, memory];
  const cassette = await record(t, server, env, async (c) => {
    await c.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
    });
    await c.callTool({ name: 'add_observations', arguments: { observations: [{ entityName: 'Ada', contents: ['worked with Babbage'] }] } });
    await c.callTool({ name: 'read_graph', arguments: {} });
    await c.callTool({ name: 'search_nodes', arguments: { query: 'Babbage' } });
  });
  // No reset: the graph file still holds the recording's entity; every run adds to it.
  const bad = await replay(t, ['--calibrate', cassette, '--', ...server], env);
  t.is(bad.code, 0, bad.out);
  t.regex(bad.out, /NOT VOLATILITY \(not stored\)/);
  const learned = learnedFor(cassette);
  t.false(learned.includes('tools/call read_graph'), bad.out);
  t.false(learned.includes('tools/call search_nodes'), bad.out);
  // From a clean graph, what the recording saw is what a replay sees.
  rmSync(file, { force: true });
  const clean = await replay(
    t,
    ['--reset', resetCommand(`require('fs').rmSync(${JSON.stringify(file)},{force:true})`), cassette, '--', ...server],
    env,
  );
  t.is(clean.code, 0, clean.out);
});
