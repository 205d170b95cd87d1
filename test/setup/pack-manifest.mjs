#!/usr/bin/env node
// package.json `prepack` (`node pack-manifest.mjs`) and `postpack` (`... --restore`): the tarball
// that `npm pack` writes ships a built dist/ and no install-time script. npm packs package.json as
// it is on disk, and warns on every install of a tarball whose manifest has a `prepare`, though
// it would not run it; so prepack builds when stale, then takes `prepare` out of package.json for
// the pack, and postpack puts the file back byte for byte, with its time (a changed time would
// make the next test run rebuild).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const manifest = join(root, 'package.json');
const kept = join(root, '.package.json.pack');

if (process.argv.includes('--restore')) {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  const build = spawnSync(process.execPath, [join(root, 'test', 'setup', 'fresh-build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  // A pack that failed before its postpack left the original here: that one is the truth.
  if (existsSync(kept)) renameSync(kept, manifest);
  const { atime, mtime } = statSync(manifest);
  copyFileSync(manifest, kept);
  utimesSync(kept, atime, mtime);
  const text = readFileSync(manifest, 'utf8');
  const json = JSON.parse(text);
  delete json.scripts.prepare;
  writeFileSync(manifest, `${JSON.stringify(json, null, 2)}\n`);
}
