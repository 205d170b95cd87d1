#!/usr/bin/env node
/**
 * The `mcp-cassette` bin. For `record -- <server>`, a host's server command, it checks the
 * options and spawns the server first (record-start.ts), before the rest of the program loads:
 * a host gives a new server about a second to answer, and a Node process takes some 50 ms to
 * reach its first line. The build bundles that step into one CommonJS file, loaded synchronously
 * (dist/bin/record-start.cjs). Then it runs the program: the bundle that `npm run build` writes
 * to dist/bin/ with esbuild (the composition root, cli-main.ts, and the worker threads, in a few
 * files instead of some 300 modules loaded one by one), or, in a build without it (`tsc` alone,
 * while developing), the compiled modules. Startup is measured by `npm run bench`
 * (docs/benchmarks.md, "Lifecycle").
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const bin = (name: string): URL => new URL(`../bin/${name}`, import.meta.url);
const bundled = existsSync(bin('mcp-cassette.js'));
if (process.argv[2] === 'record') {
  type Start = typeof import('./record-start.js');
  const { startRecordEarly } = bundled
    ? (createRequire(import.meta.url)('../bin/record-start.cjs') as Start)
    : ((await import('./record-start.js')) as Start);
  startRecordEarly(process.argv.slice(3));
}
await import(bundled ? bin('mcp-cassette.js').href : './cli-main.js');
