import { Client, StreamableHTTPClientTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ExecutionContext } from 'ava';
import type { Cassette, RecordedSession } from '../../lib/cassette/cassette.js';
import type { RecordedMessage } from '../../lib/message.js';
import type { Violation } from '../../lib/violation.js';
import { startHttpRecorder } from './http-recorder.js';
import { cli, node, root } from './paths.js';
import { waitForOutput } from './proc.js';
import { startRecorder, waitForSessions } from './recording.js';
import { tempDir } from './tmp.js';

/**
 * Recording real servers we did not write, driven by the official v2 SDK client through the real
 * `record` CLI, and reading back what the validator said about them: live (in the cassette, as
 * `record` raised it) and offline (`validate --format json` on the cassette, as a user runs it).
 */

export type ClientSteps = (client: Client) => Promise<void>;

export interface RealRecording {
  cassette: Cassette;
  path: string;
  live: Violation[];
  offline: Violation[];
}

const run = promisify(execFile);

/** The v2 client, as hosts ship it: `initialize` (2025-11-25), one process per stdio session; or,
 * `auto`, a dual-era client that tries 2026-07-28 (`server/discover`) first and falls back to
 * `initialize` when the server turns it away (on a custom transport it probes in place). */
export function v2Client(mode: 'legacy' | 'auto' = 'legacy'): Client {
  return new Client({ name: 'mcp-cassette-real-servers', version: '1.0.0' }, { versionNegotiation: { mode } });
}

async function drive(client: Client, steps: ClientSteps): Promise<void> {
  try {
    await steps(client);
  } finally {
    await client.close();
  }
}

/** A recorded cassette with its live verdicts and those of `validate` on it. */
export async function validated(path: string, cassette: Cassette): Promise<RealRecording> {
  const live = cassette.sessions.flatMap((s) => s.violations ?? []);
  // `validate` exits 0 without --fail-on; its JSON report is the offline verdict.
  const { stdout } = await run(node, [cli, 'validate', path, '--format', 'json'], { maxBuffer: 64 * 1024 * 1024 });
  const offline = (JSON.parse(stdout) as { violations: Violation[] }).violations;
  return { cassette, path, live, offline };
}

/**
 * Newline-delimited JSON-RPC over a child's pipes, closed the way a patient host closes: stdin
 * ends and we wait for the process to exit. The SDK's StdioClientTransport sends SIGTERM two
 * seconds after closing stdin and SIGKILL two seconds later; a real server that takes its time to
 * exit (the git server does, on a loaded machine) would take the recorder down with it before it
 * wrote the cassette.
 */
export class PipeTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private buffered = '';

  constructor(private readonly child: ChildProcess) {}

  async start(): Promise<void> {
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffered += chunk;
      for (let nl = this.buffered.indexOf('\n'); nl >= 0; nl = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, nl).trim();
        this.buffered = this.buffered.slice(nl + 1);
        if (!line) continue;
        try {
          this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
        } catch (err) {
          this.onerror?.(err as Error);
        }
      }
    });
    this.child.on('close', () => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.child.stdin!.write(JSON.stringify(message) + '\n');
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
    if (this.child.exitCode === null && this.child.signalCode === null) await once(this.child, 'close');
  }
}

/** `record -- <server>` with the v2 client on the recorder's stdio, then `validate`. */
export async function recordRealStdio(
  t: ExecutionContext,
  server: string[],
  steps: ClientSteps,
  options: { env?: Record<string, string>; cwd?: string; mode?: 'legacy' | 'auto' } = {},
): Promise<RealRecording> {
  const path = join(tempDir(t), 'real.cassette.json');
  const recorder = startRecorder(t, path, server, options);
  recorder.stderr!.on('data', () => {});
  const client = v2Client(options.mode);
  await client.connect(new PipeTransport(recorder));
  await drive(client, steps);
  return validated(path, await waitForSessions(path, 1));
}

/** `record --upstream <url>` (bound to 127.0.0.1) with the v2 client over Streamable HTTP. */
export async function recordRealHttp(
  t: ExecutionContext,
  upstream: string,
  steps: ClientSteps,
  options: { mode?: 'legacy' | 'auto' } = {},
): Promise<RealRecording> {
  const path = join(tempDir(t), 'real.cassette.json');
  const recorder = await startHttpRecorder(t, upstream, path);
  const client = v2Client(options.mode);
  await client.connect(new StreamableHTTPClientTransport(new URL(recorder.url)));
  await drive(client, steps);
  const { cassette } = await recorder.stop();
  return validated(path, cassette);
}

/** Reads a server's output to nowhere once we have what we waited for: a pipe nobody reads
 * fills up and stops a chatty server. */
export function drain(child: ChildProcess): void {
  child.stdout?.on('data', () => {});
  child.stderr?.on('data', () => {});
}

/**
 * A loopback port that nothing listens on, nor can while the test runs: the local port of a
 * connection this process holds open (a socket without SO_REUSEADDR keeps any other listener off
 * it). Connecting to 127.0.0.1 there is refused. Both ends close when the test ends.
 */
export async function closedPort(t: ExecutionContext): Promise<number> {
  const peer = createServer((socket) => socket.resume());
  peer.listen(0, '127.0.0.1');
  await once(peer, 'listening');
  const holder = connect((peer.address() as AddressInfo).port, '127.0.0.1');
  await once(holder, 'connect');
  t.teardown(() => {
    holder.destroy();
    peer.close();
  });
  return holder.localPort!;
}

/** force-loopback.cjs: a --require preload that binds peers with no host option to 127.0.0.1
 * and says where each listens, on stderr. */
export const forceLoopback = join(root, 'test', 'servers', 'force-loopback.cjs');

/**
 * The port a peer started under `--require forceLoopback` on port 0 (`PORT=0` and the like) got
 * from the kernel: the preload's line on the peer's stderr, read from when it was spawned. Peers
 * that listen once only (the preload reports every TCP listen; the first is taken).
 */
export async function loopbackPort(peer: ChildProcess, timeoutMs = 60_000): Promise<number> {
  const listening = /^force-loopback: listening on 127\.0\.0\.1:(\d+)$/m;
  const text = await waitForOutput(peer.stderr!, (s) => listening.test(s), timeoutMs);
  return Number(listening.exec(text)![1]);
}

/**
 * The first match of `pattern` in what `stream` gives from the moment this is called: for a
 * server started on port 0 that logs the address it got. Call it right after spawning, in the
 * same turn, so that nothing it writes is missed.
 */
export async function logged(stream: NodeJS.ReadableStream, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  return pattern.exec(await waitForOutput(stream, (s) => pattern.test(s), timeoutMs))!;
}

/** Where a finding points, in words that survive re-recording: the method of the message it
 * names (for an answer, the request it answers) with the tool, prompt or resource involved, and
 * the JSON Pointer. Seq numbers and ids shift with transport and timing; these do not. */
export function where(cassette: Cassette, v: Violation): string {
  const session = cassette.sessions.find((s) => s.id === v.session);
  const msg = session?.messages.find((m) => m.seq === v.seq);
  if (!session || !msg) return `session ${v.path ?? ''}`.trim();
  return `${subject(session, msg)} ${v.path ?? ''}`.trim();
}

function subject(session: RecordedSession, msg: RecordedMessage): string {
  const m = (msg.json ?? {}) as { method?: string; id?: unknown; params?: { name?: string; uri?: string } };
  if (typeof m.method === 'string') return [m.method, m.params?.name ?? m.params?.uri].filter(Boolean).join(' ');
  if (msg.kind !== 'response' && msg.kind !== 'error') return msg.kind;
  const request = session.messages.find((r) => {
    const j = r.json as { method?: unknown; id?: unknown } | undefined;
    return r.direction !== msg.direction && typeof j?.method === 'string' && j.id === m.id;
  });
  return request ? `answer to ${subject(session, request)}` : msg.kind;
}

/** Findings as `RULE:severity @ where`, one entry per finding (so counts show), sorted. */
export function findings(rec: { cassette: Cassette }, vs: Violation[]): string[] {
  return vs.map((v) => `${v.rule}:${v.severity} @ ${where(rec.cassette, v)}`).sort();
}

/** Findings apart from those of `rules` (known false positives, asserted on their own). */
export function withoutRules(found: string[], rules: string[]): string[] {
  return found.filter((f) => !rules.some((r) => f.startsWith(`${r}:`)));
}

/** Live findings that the offline `validate` does not have (as a multiset): none, ever. The live
 * side may have fewer: the recorder waits a bounded time for the last verdicts at the session's
 * end (recorder/live-tap.ts), and on a loaded machine its validator may not have caught up. */
export function liveBeyondOffline(rec: RealRecording): string[] {
  const offline = findings(rec, rec.offline);
  return findings(rec, rec.live).filter((f) => {
    const i = offline.indexOf(f);
    if (i === -1) return true;
    offline.splice(i, 1);
    return false;
  });
}
