import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, packageRoot } from '../../lib/paths.js';

export const root = packageRoot;
export const cli = cliPath;
export const node = process.execPath;
export const exampleServer = join(root, 'dist', 'recorder', 'demo', 'example-server.js');
export const rawServer = join(root, 'dist', 'test', 'servers', 'raw-server.js');
export const byteTap = join(root, 'dist', 'test', 'helpers', 'byte-tap.js');
export const everythingServer = join(root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
/**
 * Node 22 for the peers that need it (@ai-sdk/mcp, the conformance suite, the Inspector):
 * `$MCP_CASSETTE_NODE22`, else this Node when it is 22 or newer, else the pinned one that
 * `npm run test:all` unpacks into .cache/node22 (test/setup/ensure-node22.mjs). Undefined: those
 * tests are skipped with NODE22_HINT.
 */
export const node22: string | undefined = (() => {
  if (process.env.MCP_CASSETTE_NODE22) return process.env.MCP_CASSETTE_NODE22;
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const cached = join(root, '.cache', 'node22', process.platform === 'win32' ? 'node.exe' : join('package', 'bin', 'node'));
  return existsSync(cached) ? cached : undefined;
})();
/**
 * The peers that need Node 22 (@ai-sdk/mcp and its client script, the Inspector, the conformance
 * suite, firecrawl-mcp, mcp-proxy) live in test/peers/node22 with their own package.json and
 * lockfile, installed with Node 22 by `npm run test:all` (test/setup/ensure-node22.mjs): in the
 * project's own devDependencies a Node 20 install would warn about each of their engine ranges.
 * Undefined until installed.
 */
export const node22Peers: string | undefined = (() => {
  const dir = join(root, 'test', 'peers', 'node22');
  return existsSync(join(dir, 'node_modules', '.installed')) ? dir : undefined;
})();
/** Both: a Node 22 to run them, and the peers installed. */
export const node22Ready = node22 !== undefined && node22Peers !== undefined;
/** A file of the Node 22 peers' folder, test/peers/node22. */
export const node22Peer = (...path: string[]): string => join(root, 'test', 'peers', 'node22', ...path);
export const NODE22_HINT =
  'they need Node 22 and its peers: run `npm run test:all` (on Linux it unpacks a pinned Node 22 and installs test/peers/node22), run the tests on Node 22, or set MCP_CASSETTE_NODE22 to a Node 22 binary';
export const sharedDir = join(root, '..', 'shared');

/** The official MCP schemas (`<revision>/schema.json`, 2026-07-28 `examples/`), a test oracle
 * only: `$MCP_SPEC_DIR`, else the spec folder this project's CI lays beside the checkout; absent in
 * a plain clone, where the tests that need them are reported as skipped. */
export const specDir: string | undefined =
  process.env.MCP_SPEC_DIR ?? (existsSync(join(sharedDir, 'spec')) ? join(sharedDir, 'spec') : undefined);
/** The rule catalogue (RULES.md): `$MCP_RULES_FILE`, else the one beside the checkout in CI. */
export const rulesFile: string | undefined =
  process.env.MCP_RULES_FILE ?? (existsSync(join(sharedDir, 'RULES.md')) ? join(sharedDir, 'RULES.md') : undefined);
export const SPEC_DIR_HINT =
  'set MCP_SPEC_DIR to a folder holding the official schemas (<revision>/schema.json, 2026-07-28/examples) to run it';
export const RULES_FILE_HINT = 'set MCP_RULES_FILE to the rule catalogue (RULES.md) to run it';
