import test from 'ava';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { ChildTransport } from '../../recorder/demo/demo-client.js';
import { everythingServer, node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';
import { packedTarball } from '../helpers/packed.js';
import { readCassette } from '../helpers/recording.js';

// What a user gets from the README's Install commands, run as they are written there, on this
// working tree packed as it would be published (one `npm pack` per test run, shared with the
// package-exports test): the tarball into a project (`npm install --save-dev ./<tgz>`), whose
// bin records, validates, replays and serves a real server, and the global install
// (`npm install -g ./<tgz>`, into a throwaway prefix). Slow (real installs from the registry).
const run = promisify(execFile);
/** npm's quieter settings, through its environment, so the commands run exactly as written. */
const npmEnv = {
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_prefer_offline: 'true',
  npm_config_loglevel: 'error',
};
const sh = (line: string, cwd: string, env: NodeJS.ProcessEnv = npmEnv) =>
  run(line, { cwd, env, shell: true, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });

/** The commands of the README's Install section: each fenced block's lines, comments dropped. */
function readmeInstall(): string[][] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Install\n'), readme.indexOf('\n## ', readme.indexOf('\n## Install\n') + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter(Boolean),
  );
}

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

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

test('README: the tarball holds the runtime only; `npm install --save-dev ./<tgz>` as written gives a bin that records, validates, replays and serves a real server', async (t) => {
  t.timeout(10 * 60_000);
  const work = tempDir(t, 'mcp-cassette-install-');
  const packed = await packedTarball(work);
  const [checkout, tarball] = readmeInstall();
  t.true(checkout!.includes('npm pack'), "the README's checkout commands pack the tarball");
  t.true(
    [...checkout!, ...tarball!].every((l) => !l.includes('.tgz') || l.includes(`./${packed.filename}`)),
    `the README names the tarball npm pack writes (${packed.filename})`,
  );
  const paths = packed.files.map((f) => f.path);
  t.true(paths.includes('dist/lib/cli.js') && paths.includes('lib/cassette/cassette.schema.json') && paths.includes('docs/rules.md'));
  t.true(paths.includes('LICENSE'), 'the license text package.json names ships');
  const shipped = (re: RegExp) => paths.filter((p) => re.test(p));
  t.deepEqual(
    shipped(/^(dist\/)?test\/|^cassettes\/|^\.ci|\.map$|\.ts$(?<!\.d\.ts)/),
    [],
    'no tests, fixtures, CI scripts, maps or sources',
  );
  t.log(
    `tarball ${(packed.size / 1024).toFixed(0)} kB, unpacked ${(packed.unpackedSize / 1024 / 1024).toFixed(2)} MB, ${paths.length} files`,
  );

  const project = emptyProject(join(work, 'project'));
  copyFileSync(packed.path, join(project, packed.filename));
  const perProject = tarball!.find((l) => l.startsWith('npm install --save-dev'));
  t.truthy(perProject, "the README's per-project install");
  // At npm's default log level: an install that warns (an install-time script, an engine range)
  // alarms every user who installs it.
  const installed = await sh(perProject!, project, { ...npmEnv, npm_config_loglevel: 'warn' });
  t.regex(installed.stdout, /Usage: mcp-cassette|mcp-cassette <command>/, 'npx mcp-cassette --help ran');
  t.notRegex(installed.stderr, /npm warn/i, 'the install prints no warning');
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'mcp-cassette', 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  t.deepEqual(
    Object.keys(manifest.scripts ?? {}).filter((k) => /^(pre|post)?install$|^prepare$/.test(k)),
    [],
    'the shipped manifest has no install-time script',
  );
  const bin = join(project, 'node_modules', '.bin', 'mcp-cassette');
  t.true(existsSync(bin), 'npm linked the bin');
  t.false(existsSync(join(project, 'node_modules', 'typescript')), 'no dev dependency was installed');

  const viaNpx = await run('npx', ['--no-install', 'mcp-cassette', '--version'], { cwd: project, encoding: 'utf8' });
  t.is(viaNpx.stdout.trim(), version, 'npx finds the bin');

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

test('README: `npm install -g ./<tgz>` as written puts a working mcp-cassette on the PATH', async (t) => {
  t.timeout(10 * 60_000);
  const work = tempDir(t, 'mcp-cassette-global-');
  const packed = await packedTarball(work);
  const [checkout, tarball] = readmeInstall();
  t.true(existsSync(join(work, 'pack', packed.filename)));
  const global = tarball!.find((l) => l.startsWith('npm install -g'));
  t.truthy(global, "the README's global install");
  t.true(checkout!.includes(global!), 'the same command after a checkout packs');
  // A throwaway global prefix: npm reads it from its environment, the command stays as written.
  const prefix = join(work, 'global');
  await sh(global!, join(work, 'pack'), { ...npmEnv, npm_config_prefix: prefix });
  const bin = process.platform === 'win32' ? join(prefix, 'mcp-cassette.cmd') : join(prefix, 'bin', 'mcp-cassette');
  const shown = await collect(spawnTracked(t, bin, ['--version']));
  t.is(shown.stdout.toString().trim(), version);
  const rules = await collect(spawnTracked(t, bin, ['rules', '--format', 'json']));
  t.is(rules.code, 0);
  t.true((JSON.parse(rules.stdout.toString()) as unknown[]).length > 100);

  // One command from the tarball with no install: npx needs --package to tell the tarball from
  // the command.
  const once = tarball!.find((l) => l.startsWith('npx '));
  t.truthy(once, "the README's npx line");
  const ran = await sh(once!, join(work, 'pack'), { ...npmEnv, npm_config_prefix: prefix });
  t.regex(ran.stdout, /Usage: mcp-cassette|mcp-cassette <command>/, `${once} ran`);
});
