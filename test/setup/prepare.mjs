#!/usr/bin/env node
// package.json `prepare`: npm runs it after `npm install` in a checkout, and when it prepares a
// git dependency. It builds dist/ when a source is newer than the last build (fresh-build.mjs), so
// `npm start` right after `npm install` does not build again. The packed tarball has no `prepare`
// (pack-manifest.mjs): installing it runs nothing.
//
// `npm install -g git+<url>` cannot work for a package that builds at install: npm prepares the
// git dependency with a nested `npm install` that inherits `--global`, installs the clone into the
// global folder instead of beside it (so the build finds no tsc), and then collides with the
// outer install (measured with npm 11.19: "tsc: not found", and with the build tools supplied,
// ENOENT in the global folder). Say so, and what works, instead of "tsc: not found".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

if (!existsSync(join(root, 'node_modules', 'typescript'))) {
  const global = process.env.npm_config_global === 'true';
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  process.stderr.write(
    `mcp-cassette: ${global ? 'npm cannot install it globally from a git URL (its nested install of the clone goes to the global folder, without the build tools)' : 'the build tools (devDependencies) are not installed'}. ` +
      `Clone the repository instead, then in the checkout: npm install && npm pack && npm install -g ./mcp-cassette-${version}.tgz\n`,
  );
  process.exit(1);
}
const build = spawnSync(process.execPath, [join(root, 'test', 'setup', 'fresh-build.mjs')], { cwd: root, stdio: 'inherit' });
process.exit(build.status ?? 1);
