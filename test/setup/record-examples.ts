#!/usr/bin/env node
/**
 * Re-records cassettes/examples/ from real servers through the real proxy:
 * `npm run build && node dist/test/setup/record-examples.js` (run from the repository root).
 * Paths are kept relative so the cassettes do not name this machine's folders.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { runExampleScenario } from '../../recorder/demo/example-client.js';
import { runV1EverythingScenario } from '../peers/v1-client.js';

const dir = 'cassettes/examples';
const record = (cassette: string, label: string, server: string[]) => [
  'dist/lib/cli.js',
  'record',
  '--log-level',
  'warn',
  '--cassette',
  `${dir}/${cassette}`,
  '--label',
  label,
  '--',
  ...server,
];

rmSync(`${dir}/example-server.cassette.json`, { force: true });
for (const mode of ['auto', 'legacy'] as const) {
  await runExampleScenario(
    {
      command: 'node',
      args: record('example-server.cassette.json', `v2 client ${mode}`, ['node', 'dist/recorder/demo/example-server.js', 'stdio']),
    },
    mode,
  );
}
rmSync(`${dir}/server-everything.cassette.json`, { force: true });
await runV1EverythingScenario(
  'node',
  record('server-everything.cassette.json', 'v1 client', [
    'node',
    'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
    'stdio',
  ]),
);

// Streamable HTTP: the example server's HTTP mode behind `record --upstream`.
rmSync(`${dir}/example-server-http.cassette.json`, { force: true });
const upstream = spawn('node', ['dist/recorder/demo/example-server.js', 'http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const upstreamUrl = await firstLine(upstream.stdout);
const proxy = spawn(
  'node',
  [
    'dist/lib/cli.js',
    'record',
    '--log-level',
    'warn',
    '--upstream',
    upstreamUrl,
    '--cassette',
    `${dir}/example-server-http.cassette.json`,
    '--label',
    'v2 client over HTTP',
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const proxyUrl = await firstLine(proxy.stdout);
for (const mode of ['auto', 'legacy'] as const) await runExampleScenario({ url: proxyUrl }, mode);
proxy.kill('SIGINT');
await new Promise((r) => proxy.on('close', r));
upstream.kill('SIGTERM');
// Give the stdio recorders (which finish after their clients return) time to write.
await new Promise((r) => setTimeout(r, 1500));

function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (c: Buffer) => {
      text += c.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0]!.trim());
    });
  });
}
