import test from 'ava';
import { copyFileSync, existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { until } from './rotation/dir-helpers.js';
import { parse } from 'jsonc-parser';
import { runExampleScenario } from '../../recorder/demo/example-client.js';
import { backupPath, statePath, unwrapConfig, wrapConfig } from '../../recorder/wrap/wrap.js';
import { setValue } from '../../recorder/wrap/host-config.js';
import { cli, exampleServer, node, root } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { startTappedUpstream } from '../helpers/http-taps.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createExampleServer } from '../../recorder/demo/example-tools.js';
import { readCassette } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

const fixtures = join(root, 'cassettes', 'fixtures', 'host-configs');
type Entry = { command?: string; args?: string[]; env?: Record<string, string>; url?: string; type?: string };

const cases = [
  {
    file: 'claude_desktop_config.json',
    key: 'mcpServers',
    stdio: ['filesystem', 'github'],
    http: ['remote'],
    left: [],
    keep: '"globalShortcut": "Ctrl+Space"',
  },
  {
    file: 'vscode-mcp.json',
    key: 'servers',
    stdio: ['memory', 'bare'],
    http: ['docs'],
    left: [],
    keep: '{ "type": "promptString", "id": "api-key", "description": "API key", "password": true },',
  },
  {
    file: 'cursor-mcp.json',
    key: 'mcpServers',
    stdio: ['everything'],
    http: [],
    left: ['sse-server'],
    keep: '"url": "http://localhost:8000/sse"',
  },
];

for (const c of cases) {
  test(`wrap/unwrap round trip: ${c.file}`, async (t) => {
    const dir = tempDir(t);
    const config = join(dir, c.file);
    copyFileSync(join(fixtures, c.file), config);
    const original = readFileSync(config, 'utf8');
    const before = (parse(original) as Record<string, Record<string, Entry>>)[c.key]!;
    const cassetteDir = join(dir, 'cassettes');

    const report = await wrapConfig(config, { cassetteDir, http: true });
    t.deepEqual(report.changed.map((x) => x.name).sort(), [...c.stdio, ...c.http].sort());
    t.deepEqual(
      report.skipped.map((x) => x.name),
      c.left,
    );
    t.is(readFileSync(backupPath(config), 'utf8'), original, 'the backup is the original file');
    const wrappedText = readFileSync(config, 'utf8');
    const after = (parse(wrappedText) as Record<string, Record<string, Entry>>)[c.key]!;
    for (const name of c.stdio) {
      const was = before[name]!;
      const now = after[name]!;
      t.is(now.command, process.execPath, 'absolute node path');
      t.deepEqual(now.args, [
        realpathSync(cli),
        'record',
        '--cassette-dir',
        join(cassetteDir, name),
        '--label',
        name,
        '--',
        was.command!,
        ...(was.args ?? []),
      ]);
      t.deepEqual(now.env, was.env, 'env stays explicit and unchanged');
      t.is(now.type, was.type);
    }
    for (const name of c.http) {
      const was = before[name]!;
      const now = after[name]!;
      const change = report.changed.find((x) => x.name === name)!;
      const port = new URL(now.url!).port;
      t.is(now.url, `http://127.0.0.1:${port}${new URL(was.url!).pathname}`, 'the entry points at the local proxy, same path');
      t.deepEqual({ ...now, url: was.url }, was, 'nothing else in the entry changes');
      t.deepEqual(change.command, [
        process.execPath,
        realpathSync(cli),
        'record',
        '--upstream',
        was.url,
        '--listen',
        `127.0.0.1:${port}`,
        '--cassette-dir',
        join(cassetteDir, name),
        '--label',
        name,
      ]);
    }
    for (const name of c.left) t.deepEqual(after[name], before[name], 'legacy HTTP+SSE entries are left alone');
    if (c.file === 'vscode-mcp.json') {
      t.true(wrappedText.includes('// VS Code workspace MCP servers'), 'comments survive');
      t.true(wrappedText.includes('/* no args at all */'));
    }
    t.true(wrappedText.includes(c.keep), 'the rest of the file survives as it was');

    const again = await wrapConfig(config, { cassetteDir, http: true });
    t.deepEqual(again.changed, [], 'wrapping twice changes nothing');
    t.is(readFileSync(config, 'utf8'), wrappedText);

    const undone = await unwrapConfig(config);
    t.deepEqual(undone.changed.map((x) => x.name).sort(), [...c.stdio, ...c.http].sort());
    t.is(readFileSync(config, 'utf8'), original, 'unwrap restores the original bytes');
    t.false(existsSync(backupPath(config)), 'the backup is removed once nothing is wrapped');
    t.false(existsSync(statePath(config)), 'and so is the record of wrapped URLs');
  });
}

test('unwrap after other edits restores the entries and keeps the edits', async (t) => {
  const dir = tempDir(t);
  const config = join(dir, 'claude_desktop_config.json');
  copyFileSync(join(fixtures, 'claude_desktop_config.json'), config);
  await wrapConfig(config, { cassetteDir: join(dir, 'c'), servers: ['filesystem', 'remote'] });
  const edited = setValue(readFileSync(config, 'utf8'), ['globalShortcut'], 'Alt+Space');
  writeFileSync(config, edited);
  await unwrapConfig(config);
  const doc = parse(readFileSync(config, 'utf8')) as { globalShortcut: string; mcpServers: Record<string, Entry> };
  const original = parse(readFileSync(join(fixtures, 'claude_desktop_config.json'), 'utf8')) as { mcpServers: Record<string, Entry> };
  t.is(doc.globalShortcut, 'Alt+Space');
  t.deepEqual(doc.mcpServers, original.mcpServers);
});

test('wrap names a server that does not exist, and a broken config, with clear errors', async (t) => {
  const dir = tempDir(t);
  const config = join(dir, 'cursor-mcp.json');
  copyFileSync(join(fixtures, 'cursor-mcp.json'), config);
  const missing = await collect(spawnTracked(t, node, [cli, 'wrap', config, '--server', 'nope']));
  t.is(missing.code, 2);
  t.regex(missing.stderr, /no server named "nope" in .*cursor-mcp\.json; it has: everything, sse-server/);
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, '{"mcpServers": {');
  const bad = await collect(spawnTracked(t, node, [cli, 'wrap', broken]));
  t.is(bad.code, 2);
  t.regex(bad.stderr, /broken\.json cannot be parsed: .* at line 1; fix the file, nothing was changed/);
  t.is(readFileSync(broken, 'utf8'), '{"mcpServers": {');
});

test('a wrapped entry works when a host starts it from / with only its own env: each launch adds a cassette to the per-user data folder, under --keep-files', async (t) => {
  const dir = tempDir(t);
  const config = join(dir, 'claude_desktop_config.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { example: { command: node, args: [exampleServer, 'stdio'], env: { EXAMPLE: '1' } } } }, null, 2),
  );
  // No --cassette-dir: the XDG data folder of this (test) user.
  const data = join(dir, 'data');
  const out = await collect(
    spawnTracked(t, node, [cli, 'wrap', config, '--keep-files', '2'], { env: { ...process.env, XDG_DATA_HOME: data } }),
  );
  t.is(out.code, 0, out.stderr);
  const serverDir = join(data, 'mcp-cassette', 'cassettes', 'example');
  t.true(out.stdout.toString().includes(`wrapped "example" -> records into ${serverDir}/ (a cassette per launch)`), out.stdout.toString());
  const entry = (JSON.parse(readFileSync(config, 'utf8')) as { mcpServers: { example: Entry } }).mcpServers.example;
  t.is(entry.command, process.execPath);
  t.true(isAbsolute(entry.args![0]!));
  t.deepEqual(entry.args!.slice(1, 6), ['record', '--cassette-dir', serverDir, '--keep-files', '2']);
  // What Claude Desktop does: spawn command+args with the entry's env and no useful cwd, once per launch.
  const closed = (): string[] =>
    existsSync(serverDir)
      ? readdirSync(serverDir)
          .filter((n) => n.endsWith('.cassette.json'))
          .sort()
      : [];
  const seen: string[] = [];
  for (let launch = 1; launch <= 3; launch++) {
    const result = await runExampleScenario({ command: entry.command!, args: entry.args!, env: entry.env!, cwd: '/' }, 'legacy');
    t.is(result.protocolVersion, '2025-11-25');
    await until(() => closed().some((n) => !seen.includes(n)), "the launch's cassette");
    seen.push(...closed().filter((n) => !seen.includes(n)));
  }
  await until(() => closed().length === 2, 'the retention policy');
  t.is(seen.length, 3, 'a cassette per launch');
  t.deepEqual(closed(), seen.slice(1), '--keep-files 2 deleted the oldest');
  const cassette = readCassette(join(serverDir, closed()[1]!));
  t.is(cassette.sessions[0]!.label, 'example');
  t.is((cassette.sessions[0]!.target as { cwd: string }).cwd, '/');
});

test('a wrapped HTTP entry: the printed record command serves the new URL and records; unwrap restores the URL', async (t) => {
  const dir = tempDir(t);
  const handler = toNodeHandler(createMcpHandler(() => createExampleServer(), { legacy: 'stateless' }));
  const upstream = await startTappedUpstream(t, (req, res) => void handler(req, res));
  const config = join(dir, 'mcp.json');
  const original = JSON.stringify({ servers: { example: { type: 'http', url: upstream.url } } }, null, '\t');
  writeFileSync(config, original);
  const out = await collect(spawnTracked(t, node, [cli, 'wrap', config, '--http', '--cassette-dir', join(dir, 'cassettes')]));
  t.is(out.code, 0, out.stderr);
  const printed = out.stdout.toString();
  t.regex(printed, /wrapped "example" \(HTTP\): it now points at http:\/\/127\.0\.0\.1:\d+\/mcp; start the recording proxy with/);
  const commandLine = printed
    .split('\n')
    .find((l) => l.includes(' record --upstream '))!
    .trim()
    .split(' ');
  const entry = (JSON.parse(readFileSync(config, 'utf8')) as { servers: { example: Entry } }).servers.example;
  // Run exactly what wrap printed, then use the entry's URL as the host would.
  const proxy = spawnTracked(t, commandLine[0]!, commandLine.slice(1));
  const done = collect(proxy);
  await waitForOutput(proxy.stdout!, (s) => s.includes('\n'));
  const result = await runExampleScenario({ url: entry.url! }, 'auto');
  t.is(result.protocolVersion, '2026-07-28');
  proxy.kill('SIGINT');
  t.is((await done).code, 0);
  const files = readdirSync(join(dir, 'cassettes', 'example')).filter((n) => n.endsWith('.cassette.json'));
  t.is(files.length, 1);
  t.true(readCassette(join(dir, 'cassettes', 'example', files[0]!)).sessions.length > 3);
  const undo = await collect(spawnTracked(t, node, [cli, 'unwrap', config]));
  t.is(undo.code, 0);
  t.is(readFileSync(config, 'utf8'), original);
});
