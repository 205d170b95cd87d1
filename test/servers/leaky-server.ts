#!/usr/bin/env node
/**
 * A real MCP server (official v2 SDK, both eras) that leaks a credential of its own: its
 * `whoami` tool answers with the key in $LEAKY_SERVER_KEY (an AWS-shaped access key, a GitHub
 * token) in the text of its result, whatever the client sent, so a replay of a recording makes it
 * leak again. For the tests of verdicts whose evidence the recorder masked (SEC-SECRET-LEAK). The
 * key comes from the environment, as a real credential would, so no command line (a report names
 * the build's) holds it. Over stdio, or over Streamable HTTP with `--http` (serve-v2.ts).
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { McpServer } from '@modelcontextprotocol/server';
import { serveV2 } from './serve-v2.js';

const key = process.env.LEAKY_SERVER_KEY;
if (!key) {
  process.stderr.write('leaky-server: set LEAKY_SERVER_KEY to the credential it leaks\n');
  process.exit(2);
}

function createServer(): McpServer {
  const server = new McpServer({ name: 'leaky', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('whoami', { description: 'Says which cloud identity the server deploys as' }, async () => ({
    content: [{ type: 'text', text: `deploying as ${key}` }],
  }));
  return server;
}

serveV2(createServer);
