import { join } from 'node:path';
import { cliPath, packageRoot } from '../../lib/paths.js';

export const root = packageRoot;
export const cli = cliPath;
export const node = process.execPath;
export const exampleServer = join(root, 'dist', 'recorder', 'demo', 'example-server.js');
export const rawServer = join(root, 'dist', 'test', 'servers', 'raw-server.js');
export const byteTap = join(root, 'dist', 'test', 'helpers', 'byte-tap.js');
export const everythingServer = join(root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
/** Node 22, unpacked from the npm registry by test/setup/ensure-node22.mjs (peers that need it). */
export const node22 = join(root, '.cache', 'node22', 'package', 'bin', 'node');
export const sharedDir = join(root, '..', 'shared');
