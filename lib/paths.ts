import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Whether this code runs from the bundle that `npm run build` writes to dist/bin/ (lib/cli.ts),
 * rather than from the compiled modules of dist/lib/ and the feature folders. */
export const bundled = basename(here) === 'bin';

/** Root of the installed package. Compiled files live in dist/lib/ (the bundle in dist/bin/), two
 * levels below it. */
export const packageRoot = resolve(here, '..', '..');

/** The compiled CLI entry point, for commands that must spawn `mcp-cassette` by absolute path. */
export const cliPath = resolve(packageRoot, 'dist', 'lib', 'cli.js');

/** A worker thread's script: the bundle's own entry (dist/bin/<name>.js) when running from the
 * bundle, else the compiled module `compiled`. */
export function workerScript(name: string, compiled: URL): string {
  return bundled ? join(here, `${name}.js`) : fileURLToPath(compiled);
}
