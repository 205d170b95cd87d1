import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './paths.js';
import { sharedArtifact } from './shared-artifact.js';

export interface Packed {
  /** The tarball's path, in the caller's folder. */
  path: string;
  /** The name npm gave it: <name>-<version>.tgz. */
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

/**
 * This working tree packed as it would be published (`npm pack`, with its prepack and postpack:
 * the tarball's manifest loses `prepare`; the runner built dist/ already, so prepack builds
 * nothing), once per test run; `dir/pack/` gets a copy of the tarball.
 */
export async function packedTarball(dir: string): Promise<Packed> {
  const copy = join(dir, 'pack');
  await sharedArtifact('pack', copy, async (path) => {
    mkdirSync(path);
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', path], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
    writeFileSync(join(path, 'listing.json'), JSON.stringify((JSON.parse(out) as Omit<Packed, 'path'>[])[0]));
  });
  const packed = JSON.parse(readFileSync(join(copy, 'listing.json'), 'utf8')) as Omit<Packed, 'path'>;
  return { ...packed, path: join(copy, packed.filename) };
}
