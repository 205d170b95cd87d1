#!/usr/bin/env node
// Some real peers need Node 22 (@ai-sdk/mcp, the conformance suite, the Inspector, firecrawl-mcp,
// mcp-proxy). `npm run test:all` runs this first. On Linux it unpacks a pinned Node 22 from the npm
// registry (the node-linux-<arch> package, checked against the integrity pinned here) into
// .cache/node22, once; MCP_CASSETTE_NODE22, or this Node when it is 22 or newer, comes first (as in
// test/helpers/paths.ts). Then it installs those peers into test/peers/node22 with that Node
// (`npm ci` on their own lockfile, again only when the lockfile changed): kept out of the
// project's devDependencies, a checkout's `npm install` on Node 20 warns about no engine range.
// Elsewhere (macOS, Windows) with no Node 22 it says how to provide one and exits 0: those tests
// are then skipped with that hint, the rest run.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '22.23.5';
const INTEGRITY = {
  x64: 'sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==',
  arm64: 'sha512-e1LOUGKVruPGuLVutn8+Cgm5pI1APm4Kvh+zbb/qe/ZpD9s+TQby5iUgZOWmPpbSKpj0Td8DP1N0NEnXasHizg==',
};

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = join(root, '.cache', 'node22');
const bin = join(dir, 'package', 'bin', 'node');
const say = (line) => console.error(`ensure-node22: ${line}`);

const node22 = process.env.MCP_CASSETTE_NODE22 ?? (Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : unpacked());
if (node22) installPeers(node22);

/** The pinned Node 22 in .cache/node22, unpacked once; undefined where none is pinned. */
function unpacked() {
  if (existsSync(bin) && execFileSync(bin, ['--version']).toString().trim() === `v${VERSION}`) return bin;
  const integrity = process.platform === 'linux' ? INTEGRITY[process.arch] : undefined;
  if (!integrity) {
    say(
      `no pinned Node 22 package for ${process.platform}-${process.arch}; the tests of peers that need Node 22 will be skipped. Set MCP_CASSETTE_NODE22 to a Node 22 binary (e.g. $(nvm which 22)) to run them.`,
    );
    return undefined;
  }
  const name = `node-linux-${process.arch}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tgz = execFileSync('npm', ['pack', `${name}@${VERSION}`, '--silent'], { cwd: dir, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  const file = join(dir, tgz);
  const digest = `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
  if (digest !== integrity) {
    rmSync(dir, { recursive: true, force: true });
    say(`${name}@${VERSION} from the registry does not match the pinned integrity (${digest}); nothing was unpacked`);
    process.exit(1);
  }
  execFileSync('tar', ['xzf', tgz], { cwd: dir });
  rmSync(file);
  say(`${execFileSync(bin, ['--version']).toString().trim()} at ${bin}`);
  return bin;
}

/** npm ci of test/peers/node22 with Node 22 first on the PATH, when its lockfile changed. */
function installPeers(nodeBin) {
  const peers = join(root, 'test', 'peers', 'node22');
  const marker = join(peers, 'node_modules', '.installed');
  const lock = createHash('sha256')
    .update(readFileSync(join(peers, 'package-lock.json')))
    .digest('hex');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === lock) return;
  say('installing the Node 22 peers into test/peers/node22 (npm ci)');
  const env = { ...process.env, PATH: `${dirname(nodeBin)}${delimiter}${process.env.PATH ?? ''}` };
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel', 'error'], {
    cwd: peers,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
    shell: process.platform === 'win32',
  });
  writeFileSync(marker, lock);
}
