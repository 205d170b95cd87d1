/**
 * What a checkout and a tarball promise before anything runs: the Node versions package.json
 * admits install every locked package without an engine warning, the license it names is there,
 * the packed tarball is not something git would commit, and no install-time script ships. The
 * real installs are in install.test.ts (e2e tier).
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';

interface Manifest {
  version: string;
  license: string;
  engines: { node: string };
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
}
interface Lock {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
}

const read = <T>(path: string): T => JSON.parse(readFileSync(join(root, path), 'utf8')) as T;
const manifest = read<Manifest>('package.json');

test('every locked package admits the oldest Node package.json admits (npm install warns of none)', (t) => {
  const oldest = semver.minVersion(manifest.engines.node)!.version;
  const lock = read<Lock>('package-lock.json');
  const refused = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && !p.optional && p.engines && !Array.isArray(p.engines) && p.engines.node)
    .filter(([, p]) => !semver.satisfies(oldest, (p.engines as { node: string }).node, { includePrerelease: true }))
    .map(([path, p]) => `${path} wants Node ${(p.engines as { node: string }).node}`);
  t.deepEqual(refused, [], `Node ${oldest}: move a peer that needs a newer Node to test/peers/node22`);
});

test('the peers that need Node 22 have their own manifest and lockfile, not the project devDependencies', (t) => {
  const peers = read<{ dependencies: Record<string, string> }>('test/peers/node22/package.json');
  t.true(existsSync(join(root, 'test', 'peers', 'node22', 'package-lock.json')));
  t.true(Object.keys(peers.dependencies).includes('@ai-sdk/mcp'));
  t.deepEqual(
    Object.keys(peers.dependencies).filter((name) => name in manifest.devDependencies),
    [],
  );
});

test('LICENSE holds the license package.json names', (t) => {
  t.is(manifest.license, 'MIT');
  t.regex(readFileSync(join(root, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) \d{4} /);
});

test('git ignores the tarball npm pack writes into the checkout', (t) => {
  const tarball = `mcp-cassette-${manifest.version}.tgz`;
  // check-ignore exits 0 and names the path when a rule ignores it.
  t.is(execFileSync('git', ['check-ignore', '--no-index', tarball], { cwd: root, encoding: 'utf8' }).trim(), tarball);
});

test('no install-time script; prepare builds only when stale, and pack takes prepare out of the tarball', (t) => {
  t.deepEqual(
    Object.keys(manifest.scripts).filter((k) => /^(pre|post)?install$/.test(k)),
    [],
  );
  t.is(manifest.scripts.prepare, 'node test/setup/prepare.mjs');
  t.is(manifest.scripts.prepack, 'node test/setup/pack-manifest.mjs');
  t.is(manifest.scripts.postpack, 'node test/setup/pack-manifest.mjs --restore');
  t.true(manifest.scripts.start!.startsWith('node test/setup/fresh-build.mjs && '), 'npm start builds only when a source changed');
});

test('prepare without the build tools (npm install -g git+<url>) stops with one line naming what works, not "tsc: not found"', async (t) => {
  const clone = tempDir(t, 'mcp-cassette-git-prepare-');
  mkdirSync(join(clone, 'test', 'setup'), { recursive: true });
  copyFileSync(join(root, 'test', 'setup', 'prepare.mjs'), join(clone, 'test', 'setup', 'prepare.mjs'));
  copyFileSync(join(root, 'package.json'), join(clone, 'package.json'));
  const r = await collect(
    spawnTracked(t, node, [join(clone, 'test', 'setup', 'prepare.mjs')], { env: { ...process.env, npm_config_global: 'true' } }),
  );
  t.is(r.code, 1);
  const lines = r.stderr.trim().split('\n');
  t.is(lines.length, 1, r.stderr);
  t.regex(lines[0]!, /npm cannot install it globally from a git URL/);
  t.true(lines[0]!.endsWith(`npm install && npm pack && npm install -g ./mcp-cassette-${manifest.version}.tgz`), lines[0]);
});
