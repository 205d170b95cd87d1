import test from 'ava';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { ChildTransport } from '../../recorder/demo/demo-client.js';
import { everythingServer, node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';
import { readCassette } from '../helpers/recording.js';

// What a user gets from the two ordinary ways to install: `npm pack` then `npm install <tarball>
// --omit=dev` into an empty folder (the registry supplies the runtime dependencies), and
// `npm install git+file://<clone>` (npm installs the dev dependencies and runs `prepare`, which
// builds). Each must give a working `node_modules/.bin/mcp-cassette`. Slow (real installs), so
// one tarball install serves every command, and the git install is checked for its bin only.
const run = promisify(execFile);
const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel', 'error'], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    encoding: 'utf8',
  });

function emptyProject(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  return dir;
}

/** The official SDK client, through `command args`: lists the tools and calls `echo`. */
async function useEverything(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ tools: string[]; echo: unknown; exit: number | null }> {
  const transport = new ChildTransport(command, args, { cwd });
  const client = new Client({ name: 'install-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((x) => x.name);
    const echo = (await client.callTool({ name: 'echo', arguments: { message: 'installed' } })).content;
    return { tools, echo, exit: null };
  } finally {
    await client.close();
  }
}

test('npm pack ships the runtime only; installed with --omit=dev, the bin records, validates, replays and serves a real server', async (t) => {
  t.timeout(10 * 60_000);
  const work = tempDir(t, 'mcp-cassette-install-');
  const { stdout } = await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], root);
  const [packed] = JSON.parse(stdout) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
  const paths = packed!.files.map((f) => f.path);
  t.true(paths.includes('dist/lib/cli.js') && paths.includes('lib/cassette/cassette.schema.json') && paths.includes('docs/rules.md'));
  const shipped = (re: RegExp) => paths.filter((p) => re.test(p));
  t.deepEqual(
    shipped(/^(dist\/)?test\/|^cassettes\/|^\.ci|\.map$|\.ts$(?<!\.d\.ts)/),
    [],
    'no tests, fixtures, CI scripts, maps or sources',
  );
  t.log(
    `tarball ${(packed!.size / 1024).toFixed(0)} kB, unpacked ${(packed!.unpackedSize / 1024 / 1024).toFixed(2)} MB, ${paths.length} files`,
  );

  const project = emptyProject(join(work, 'project'));
  await npm(['install', '--omit=dev', join(work, packed!.filename)], project);
  const bin = join(project, 'node_modules', '.bin', 'mcp-cassette');
  t.true(existsSync(bin), 'npm linked the bin');
  t.false(existsSync(join(project, 'node_modules', 'typescript')), 'no dev dependency was installed');

  const viaNpx = await run('npx', ['--no-install', 'mcp-cassette', '--version'], { cwd: project, encoding: 'utf8' });
  t.is(
    viaNpx.stdout.trim(),
    (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version,
    'npx finds the bin',
  );

  const cassette = join(project, 'everything.cassette.json');
  const server = [node, everythingServer, 'stdio'];
  // record: a host starts the bin in place of the server.
  const direct = await useEverything(server[0]!, server.slice(1), project);
  const recorded = await useEverything(bin, ['record', '--cassette', cassette, '--', ...server], project);
  t.deepEqual(recorded.tools, direct.tools, 'the client sees the same server through the proxy');
  t.deepEqual(recorded.echo, direct.echo);
  // Written as the recorder exited, or by its finisher right after.
  t.is(readCassette(cassette).sessions.length, 1);

  const validate = await collect(spawnTracked(t, bin, ['validate', cassette, '--format', 'json'], { cwd: project }));
  t.is(validate.code, 0, validate.stderr);
  t.true(Array.isArray((JSON.parse(validate.stdout.toString()) as { violations: unknown[] }).violations));

  const replay = await collect(spawnTracked(t, bin, ['replay', cassette, '--', ...server], { cwd: project }));
  t.is(replay.code, 0, replay.stdout.toString() + replay.stderr);
  t.regex(replay.stdout.toString(), /interactions in 1 sessions: \d+ unchanged, 0 breaking/);

  const served = await useEverything(bin, ['serve', cassette, '--log-level', 'warn'], project);
  t.deepEqual(served.tools, direct.tools, 'served from the cassette, no server running');
  t.deepEqual(served.echo, direct.echo);

  const help = await collect(spawnTracked(t, bin, ['validate', '--help'], { cwd: project }));
  const docs = /\nDocs:\s+(\S+)/.exec(help.stdout.toString())?.[1];
  t.truthy(
    docs && docs.startsWith(join(project, 'node_modules', 'mcp-cassette', 'docs')) && existsSync(docs),
    'help points at the docs shipped in the package',
  );
});

test('npm install git+file://<clone> builds with `prepare` and gives a working bin', async (t) => {
  t.timeout(15 * 60_000);
  const work = tempDir(t, 'mcp-cassette-git-');
  const clone = join(work, 'clone');
  // A clone holds what is committed; `prepare` must build it from nothing (no dist/).
  await run('git', ['clone', '--quiet', '--no-local', root, clone]);
  t.false(existsSync(join(clone, 'dist')));
  const project = emptyProject(join(work, 'project'));
  await npm(['install', `git+file://${clone}`], project);
  const installed = join(project, 'node_modules', 'mcp-cassette');
  t.true(existsSync(join(installed, 'dist', 'lib', 'cli.js')), 'prepare built the package');
  t.false(readdirSync(installed).includes('test'), 'packed with the files list');
  const bin = join(project, 'node_modules', '.bin', 'mcp-cassette');
  const version = await collect(spawnTracked(t, bin, ['--version'], { cwd: project }));
  t.is(version.stdout.toString().trim(), (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version);
  const rules = await collect(spawnTracked(t, bin, ['rules', '--format', 'json'], { cwd: project }));
  t.is(rules.code, 0);
  t.true((JSON.parse(rules.stdout.toString()) as unknown[]).length > 100);
});
