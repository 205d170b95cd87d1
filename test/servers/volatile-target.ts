#!/usr/bin/env node
/**
 * A small MCP server (official v2 SDK, both eras) for calibration tests, over stdio, or over
 * Streamable HTTP on 127.0.0.1 with `--http` (prints its URL on the first stdout line). `get_env` answers
 * with values no built-in shape covers and that differ on every run: a worker id (random per
 * server instance: per process over stdio, per session over HTTP) and a random base-36 nonce, in
 * its text and in structuredContent. `add` and `describe` answer the same every
 * time, at the same paths (`/result/content/0/text`, structuredContent).
 *
 * `count` sends a progress notification (when asked) and a log message per step, stable unless
 * `--regression progress-pid` puts the process id in them.
 *
 * `--server-version X` answers the handshake with another version.
 *
 * `--regression add-changed` (real changes in stable tools): `add` answers one more, and
 * `describe` another nonce. `--regression describe-removed`: `describe` is gone (not volatility).
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { serveV2 } from './serve-v2.js';

const argv = process.argv.slice(2);
const regression = argv.includes('--regression') ? argv[argv.indexOf('--regression') + 1] : undefined;
/** `--server-version X`: another build's version in the handshake (calibration must refuse it). */
const serverVersion = argv.includes('--server-version') ? argv[argv.indexOf('--server-version') + 1]! : '1.0.0';

function createServer(): McpServer {
  // A fresh worker id per server instance: one per process over stdio, one per session over HTTP,
  // so it varies between calibration runs against one long-running HTTP server too.
  const worker = 10_000 + Math.floor(Math.random() * 90_000);
  const server = new McpServer({ name: 'volatile-target', version: serverVersion }, { capabilities: { tools: {}, logging: {} } });
  server.registerTool(
    'get_env',
    {
      description: 'Where this server runs: its worker (process) id and a fresh nonce',
      inputSchema: z.object({}),
      outputSchema: z.object({ worker: z.number(), nonce: z.string(), region: z.string() }),
    },
    async () => {
      // Ten base-36 characters: never a hex id or a UUID, so only calibration can learn it.
      const nonce = `n${Math.random().toString(36).slice(2, 11).padEnd(9, '0')}`;
      return {
        content: [{ type: 'text', text: `worker ${worker}, nonce ${nonce}` }],
        structuredContent: { worker, nonce, region: 'local' },
      };
    },
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    async ({ a, b }) => {
      const sum = a + b + (regression === 'add-changed' ? 1 : 0);
      return { content: [{ type: 'text', text: `sum ${sum}` }], structuredContent: { sum } };
    },
  );
  server.registerTool(
    'count',
    { description: 'Counts to 2: a progress notification (when asked) and a log message per step', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= 2; i++) {
        const note = regression === 'progress-pid' ? `step ${i} in ${process.pid}` : `step ${i}`;
        if (token !== undefined)
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: 2, message: note },
          });
        await ctx.mcpReq.log('info', note);
      }
      return { content: [{ type: 'text', text: 'counted to 2' }] };
    },
  );
  if (regression === 'describe-removed') return server;
  server.registerTool(
    'describe',
    {
      description: 'Describes the server',
      inputSchema: z.object({}),
      outputSchema: z.object({ worker: z.number(), nonce: z.string(), region: z.string() }),
    },
    // The same shape as get_env's answer, with stable values: get_env's calibrated paths must not
    // hide a change here.
    async () => ({
      content: [{ type: 'text', text: 'volatile-target, stable' }],
      structuredContent: { worker: 1, nonce: regression === 'add-changed' ? 'changed' : 'fixed', region: 'local' },
    }),
  );
  return server;
}

serveV2(createServer);
