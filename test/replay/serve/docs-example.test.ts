/**
 * The node:test example of docs/serve.md, run for real by `node --test` in a project that installed
 * mcp-cassette (a node_modules link to this package): `withCassette` from `mcp-cassette/serve`
 * records on the first run and replays on the second without the server.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { exampleServer, node, root } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { readJson, starts } from './helpers.js';

const run = promisify(execFile);

test.serial(
  'the node:test example of docs/serve.md: `node --test` records the cassette once, then replays it without the server',
  async (t) => {
    const project = tempDir(t);
    mkdirSync(join(project, 'node_modules', '@modelcontextprotocol'), { recursive: true });
    symlinkSync(root, join(project, 'node_modules', 'mcp-cassette'), 'dir');
    symlinkSync(
      join(root, 'node_modules', '@modelcontextprotocol', 'client'),
      join(project, 'node_modules', '@modelcontextprotocol', 'client'),
      'dir',
    );
    const marker = join(project, 'starts');
    writeFileSync(
      join(project, 'agent.test.mjs'),
      `
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { withCassette } from 'mcp-cassette/serve';

// The "agent": lists the tools and adds two numbers with the server it is given.
async function runAgent({ command, args }) {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const sum = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    return tools.join(',') + ' ' + JSON.stringify(sum.structuredContent);
  } finally {
    await client.close();
  }
}

const server = ['/bin/sh', '-c', 'echo started >> "$0"; exec "$1" "$2" stdio', ${JSON.stringify(marker)}, ${JSON.stringify(node)}, ${JSON.stringify(exampleServer)}];

test('the agent adds numbers', async () => {
  await withCassette('adder', { server, mode: 'once' }, async ({ command, args }) => {
    assert.match(await runAgent({ command, args }), /add.* {"sum":42}/);
  });
});
`,
    );
    const nodeTest = () =>
      run(node, ['--test', 'agent.test.mjs'], { cwd: project, env: { ...process.env, MCP_CASSETTE_MODE: '' }, timeout: 60_000 });
    const first = await nodeTest();
    t.regex(first.stdout, /# pass 1/);
    const cassette = join(project, 'cassettes', 'adder.cassette.json');
    t.true(existsSync(cassette), 'recorded into ./cassettes/adder.cassette.json');
    t.true(readJson(cassette).sessions.length >= 1);
    t.true(starts(marker) >= 1);
    const started = starts(marker);
    const second = await nodeTest();
    t.regex(second.stdout, /# pass 1/);
    t.is(starts(marker), started, 'the second run replayed without starting the server');
  },
);
