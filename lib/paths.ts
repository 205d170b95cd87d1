import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the installed package. Compiled files live in dist/lib/, two levels below it. */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The compiled CLI entry point, for commands that must spawn `mcp-cassette` by absolute path. */
export const cliPath = resolve(packageRoot, 'dist', 'lib', 'cli.js');
