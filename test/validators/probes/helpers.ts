/**
 * Builders for the probe tests: cassettes made from real exchanges with a server (sent raw, so
 * the recorded traffic is exactly what the server answered), and the servers themselves.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import type { Cassette, RecordedSession } from '../../../lib/cassette/cassette.js';
import { stringifyCassette } from '../../../lib/cassette/store.js';
import { classify, type RecordedMessage } from '../../../lib/message.js';
import { RawStdioProcess } from '../../../lib/raw-client/stdio.js';
import { node, root } from '../../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../../helpers/proc.js';

export const probeServer = join(root, 'dist', 'test', 'servers', 'probe-server.js');
export const tmcpServer = join(root, 'dist', 'test', 'servers', 'tmcp-server.js');

type Json = Record<string, unknown>;

export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'probe-test-client', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

export function sessionFrom(pairs: { request: Json; response?: Json }[], target: string[]): RecordedSession {
  const messages: RecordedMessage[] = [];
  let seq = 0;
  for (const p of pairs) {
    for (const [json, direction, channel] of [
      [p.request, 'client-to-server', 'stdin'],
      [p.response, 'server-to-client', 'stdout'],
    ] as const) {
      if (!json) continue;
      seq += 1;
      messages.push({ seq, t: seq, direction, channel, kind: classify(json), bytes: JSON.stringify(json).length, json });
    }
  }
  return {
    id: `probe-test-${Math.random().toString(36).slice(2)}`,
    transport: 'stdio',
    startedAt: new Date().toISOString(),
    target: { command: target, cwd: root },
    protocol: { revision: '2026-07-28', era: 'modern', negotiation: 'envelope' },
    proxy: { pid: process.pid, version: '0.0.0' },
    messages,
  };
}

export function writeCassette(dir: string, name: string, sessions: RecordedSession[]): string {
  const cassette: Cassette = { format: 'mcp-cassette', version: 2, sessions };
  const path = join(dir, name);
  writeFileSync(path, stringifyCassette(cassette));
  return path;
}

/** Talks 2026-07-28 to a stdio server, raw, and returns each request with its real answer; an
 * input_required answer to `confirm_action` is followed by its retry. */
export async function converse(
  command: string[],
  steps: { method: string; params?: Json }[],
): Promise<{ request: Json; response?: Json }[]> {
  const proc = new RawStdioProcess({ command });
  const pairs: { request: Json; response?: Json }[] = [];
  let id = 0;
  try {
    for (const s of steps) {
      const request: Json = { jsonrpc: '2.0', id: id++, method: s.method, params: { ...(s.params ?? {}), _meta: ENVELOPE } };
      const { response } = await proc.request(request, 10_000);
      pairs.push({ request, ...(response ? { response } : {}) });
      const r = response?.result as Json | undefined;
      if (r?.resultType === 'input_required') {
        const retry: Json = {
          jsonrpc: '2.0',
          id: id++,
          method: s.method,
          params: {
            ...(s.params ?? {}),
            inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
            ...(typeof r.requestState === 'string' ? { requestState: r.requestState } : {}),
            _meta: ENVELOPE,
          },
        };
        const second = await proc.request(retry, 10_000);
        pairs.push({ request: retry, ...(second.response ? { response: second.response } : {}) });
      }
    }
  } finally {
    await proc.close(500);
  }
  return pairs;
}

export const PROBE_SERVER_STEPS = [
  { method: 'server/discover' },
  { method: 'tools/list' },
  { method: 'prompts/list' },
  { method: 'resources/list' },
  { method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
  { method: 'tools/call', params: { name: 'confirm_action', arguments: { action: 'deploy' } } },
];

/** A cassette of the correct probe server's real answers. */
export async function probeServerCassette(dir: string): Promise<string> {
  const command = [node, probeServer, 'stdio'];
  return writeCassette(dir, 'probe-server.cassette.json', [sessionFrom(await converse(command, PROBE_SERVER_STEPS), command)]);
}

/** Starts an HTTP server that prints its URL on the first stdout line; killed when the test ends. */
export async function startHttp(t: ExecutionContext, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const child = spawnTracked(t, node, args, { env, detached: false });
  const out = await waitForOutput(child.stdout!, (s) => s.includes('\n'));
  return out.split('\n')[0]!.trim();
}

/** A temporary folder shared by every test of a file (cassettes recorded once); the file removes
 * it in `test.after.always`. */
export function sharedTempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-probe-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
