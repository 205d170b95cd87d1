/**
 * The seeded-defect server of `mcp-cassette fuzz` (test/servers/fuzz-target.ts) as tests start
 * it, and its seed cassette: a normal session, every tool but the destructive one called once with
 * valid arguments, recorded through the real `record` proxy by the official v2 SDK client, in
 * either era, over stdio or Streamable HTTP (`record --upstream`). The fuzzer mutates that
 * cassette's requests; the defects it should find are DEFECTS of fuzz-target-tools.ts.
 */
import { StreamableHTTPClientTransport, type Client } from '@modelcontextprotocol/client';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import type { ExecutionContext } from 'ava';
import { startHttpRecorder } from './http-recorder.js';
import { node, root } from './paths.js';
import { spawnTracked, waitForOutput } from './proc.js';
import { PipeTransport, v2Client } from './real-server.js';
import { startRecorder, waitForSessions } from './recording.js';
import { tempDir } from './tmp.js';

export const fuzzTarget = join(root, 'dist', 'test', 'servers', 'fuzz-target.js');

export interface FuzzTargetOptions {
  /** Streamable HTTP instead of stdio. */
  http?: boolean;
  /** Defects 1-6 fixed (the side-effect trap stays armed). */
  fixed?: boolean;
  /** More defects fixed, by number, name or tool (`--fix`, repeated). */
  fix?: ReadonlyArray<number | string>;
}

/** The server's command line: `[node, fuzz-target.js, ...flags]`. */
export function fuzzTargetCommand(options: FuzzTargetOptions = {}): string[] {
  return [
    node,
    fuzzTarget,
    ...(options.http ? ['--http'] : []),
    ...(options.fixed ? ['--fixed'] : []),
    ...(options.fix ?? []).flatMap((f) => ['--fix', String(f)]),
  ];
}

/** Starts it over Streamable HTTP (killed when the test ends): its URL, its process, and what it
 * wrote to stderr and stdout so far. */
export async function startFuzzTargetHttp(
  t: ExecutionContext,
  options: Omit<FuzzTargetOptions, 'http'> = {},
): Promise<{ url: string; server: ChildProcess; stderr: () => string; stdout: () => string }> {
  const [cmd, ...args] = fuzzTargetCommand({ ...options, http: true });
  const server = spawnTracked(t, cmd!, args);
  let stderr = '';
  let stdout = '';
  server.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  server.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  const url = (await waitForOutput(server.stdout!, (s) => s.includes('\n'))).split('\n')[0]!.trim();
  return { url, server, stderr: () => stderr, stdout: () => stdout };
}

/**
 * A call that sets off each defect (by number), for tests that drive one on purpose. Defect 2's
 * integer is not representable here: `hangRequestText` writes it into the request's text.
 */
export const TRIGGERS: Readonly<Record<number, { name: string; arguments: Record<string, unknown> }>> = {
  1: { name: 'echo', arguments: { text: 'left\u202eright' } },
  2: { name: 'parity', arguments: { n: 2 ** 53 + 2 } },
  3: { name: 'convert_temperature', arguments: { celsius: 20, to: 'rankine' } },
  4: { name: 'inspect_json', arguments: { document: nested(65) } },
  5: { name: 'greet', arguments: { name: '' } },
  6: { name: 'word_count', arguments: { text: 'word '.repeat(13_108) + 'x' } },
  7: { name: 'delete_everything', arguments: { confirm: true } },
};

/** An object nested `levels` deep: `{"a":{"a":...{}}}`. */
export function nested(levels: number): Record<string, unknown> {
  let doc: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) doc = { a: doc };
  return doc;
}

/** The text of a tools/call of `parity` whose `n` is 9007199254740993 as written (2^53 + 1, which
 * a double rounds to 2^53): the request a fuzzer's "past 2^53" mutation sends. */
export function hangRequestText(id: number | string, meta?: Record<string, unknown>): string {
  const msg = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'parity', arguments: { n: 0 }, ...(meta ? { _meta: meta } : {}) },
  };
  return JSON.stringify(msg).replace('"n":0', '"n":9007199254740993');
}

/** The calls of the seed session: every tool but delete_everything, once, with valid arguments. */
export const SEED_CALLS: ReadonlyArray<{ name: string; arguments: Record<string, unknown> }> = [
  { name: 'echo', arguments: { text: 'hello' } },
  { name: 'parity', arguments: { n: 42 } },
  { name: 'convert_temperature', arguments: { celsius: 21.5, to: 'fahrenheit' } },
  { name: 'inspect_json', arguments: { document: { title: 'notes', tags: ['a', 'b'], meta: { pages: 3 } } } },
  { name: 'greet', arguments: { name: 'Ada' } },
  { name: 'word_count', arguments: { text: 'the quick brown fox' } },
];

export type SeedEra = '2025-11-25' | '2026-07-28';

/** The seed session's steps: (2026-07-28) discover, list the tools, call each of SEED_CALLS;
 * throws when a call is not a plain success, so a seed is never a broken session. */
async function seedSteps(client: Client, era: SeedEra): Promise<void> {
  const negotiated = client.getNegotiatedProtocolVersion();
  if (negotiated !== era) throw new Error(`the v2 client negotiated ${String(negotiated)}, not ${era}`);
  if (era === '2026-07-28') await client.discover();
  const { tools } = await client.listTools();
  const listed = tools.map((tool) => tool.name);
  for (const call of SEED_CALLS) {
    if (!listed.includes(call.name)) throw new Error(`tools/list has no ${call.name}: ${listed.join(', ')}`);
    const result = await client.callTool(call);
    if (result.isError) throw new Error(`the seed call ${call.name} failed: ${JSON.stringify(result.content)}`);
  }
}

/**
 * Records the seed session and returns the cassette's path (one session, written and settled).
 * `era` picks the client: 2025-11-25 (`initialize`) or 2026-07-28 (the dual-era client, which
 * discovers the server first); `transport`: `record -- <server>` on stdio, or `record --upstream`
 * in front of the server's `--http`. `dir`: where to write it (a fresh temp dir by default);
 * `server`: the server's options (a fixed build, say).
 */
export async function recordSeedCassette(
  t: ExecutionContext,
  options: { era: SeedEra; transport: 'stdio' | 'http'; dir?: string; server?: Omit<FuzzTargetOptions, 'http'> },
): Promise<string> {
  const { era, transport } = options;
  const path = join(options.dir ?? tempDir(t), `fuzz-target-seed-${transport}-${era}.cassette.json`);
  const client = v2Client(era === '2026-07-28' ? 'auto' : 'legacy');
  if (transport === 'stdio') {
    const recorder = startRecorder(t, path, fuzzTargetCommand(options.server));
    recorder.stderr!.on('data', () => {});
    await client.connect(new PipeTransport(recorder));
    try {
      await seedSteps(client, era);
    } finally {
      await client.close();
    }
    await waitForSessions(path, 1);
    return path;
  }
  const { url, server } = await startFuzzTargetHttp(t, options.server);
  const recorder = await startHttpRecorder(t, url, path);
  await client.connect(new StreamableHTTPClientTransport(new URL(recorder.url)));
  try {
    await seedSteps(client, era);
  } finally {
    await client.close();
  }
  const { result } = await recorder.stop();
  server.kill();
  if (result.code !== 0) throw new Error(`record --upstream exited ${String(result.code)}: ${result.stderr}`);
  return path;
}

/** A port nothing listens on now, for a server the fuzzer starts (and restarts) at a known URL. */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}
