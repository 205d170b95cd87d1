/**
 * The server under fuzz, and fresh connections to it in either era. stdio: each connection is a
 * fresh process. Streamable HTTP: the endpoint the user named; when a command is given too, the
 * fuzzer starts it, waits until the endpoint accepts connections, and starts it again after a
 * crash or a hang, so that the cases after a finding still run and a finding can be shrunk on a
 * fresh server. Without a command, a crash ends the run: nothing can bring the server back.
 */
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { killGroup, spawnServer } from '../../lib/server-process.js';
import { isObject } from '../../lib/plain-object.js';
import { callsOf, paramsOf, type Plan } from '../probes/plan.js';
import { HttpWire, StdioWire, type Wire } from './wire.js';
import type { Json } from './types.js';

export type Endpoint =
  | { transport: 'stdio'; command: string[]; cwd?: string }
  | { transport: 'streamable-http'; url: string; command?: string[]; headers: Record<string, string> };

export const INIT_ID = 'mcp-cassette-fuzz-initialize';
/** How long a fresh server may take to answer its first request: its start is no hang, and a
 * busy machine starts a Node server in seconds, not milliseconds. */
export const START_ALLOWANCE_MS = 10_000;
const LIST_ID = 'mcp-cassette-fuzz-tools-list';

/** The 2025 handshake the fuzzer opens legacy connections with: the recorded `initialize`. */
export function initializeStep(plan: Plan): Json {
  return {
    jsonrpc: '2.0',
    id: INIT_ID,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'mcp-cassette-fuzz', version: '0.0.0' },
      ...(plan.initialize ?? {}),
    },
  };
}

/** A server process behind an HTTP endpoint: started by us, waited for, restarted on demand. */
export class HttpServerProcess {
  #child: ChildProcess | undefined;
  /** The last stderr lines (at most 1,000), for the panic check; `stderrTotal` counts them all. */
  readonly #stderr: string[] = [];
  stderrTotal = 0;
  #exit: { code: number | null; signal: string | null } | undefined;

  constructor(
    readonly command: readonly string[],
    readonly url: string,
  ) {}

  get alive(): boolean {
    return this.#child !== undefined && this.#exit === undefined;
  }

  /** The stderr lines written after the `total`-th (as many of them as are kept). */
  stderrSince(total: number): string[] {
    return this.#stderr.slice(Math.max(0, this.#stderr.length - (this.stderrTotal - total)));
  }

  /** Starts the server and resolves once its port accepts a connection (or rejects after `ms`). */
  async start(ms = 15_000): Promise<void> {
    this.#exit = undefined;
    const child = spawnServer(this.command);
    this.#child = child;
    child.stdout!.resume(); // its stdout is free-form over HTTP; read it so it never blocks
    child.stderr!.on('data', (c: Buffer) => {
      for (const line of c.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        this.#stderr.push(line);
        this.stderrTotal++;
      }
      if (this.#stderr.length > 1000) this.#stderr.splice(0, this.#stderr.length - 1000);
    });
    child.once('close', (code, signal) => (this.#exit = { code, signal }));
    child.once('error', () => (this.#exit = { code: null, signal: null }));
    const u = new URL(this.url);
    const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (this.#exit) throw new Error(`the server \`${this.command.join(' ')}\` exited before ${this.url} accepted connections`);
      if (await accepts(host, port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${this.url} accepted no connection within ${ms} ms of starting \`${this.command.join(' ')}\``);
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (!child || this.#exit) return;
    const closed = new Promise((r) => child.once('close', r));
    killGroup(child, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise((r) => (timer = setTimeout(r, 1000)))]);
    clearTimeout(timer);
    if (!this.#exit) {
      killGroup(child, 'SIGKILL');
      await closed;
    }
  }
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Opens a connection in the era asked for. A 2025 connection makes the recorded handshake
 * first, unless `handshake` is false (the case is about what comes before it). The handshake's
 * frames stay in the wire's tape: a finding's session starts with them.
 */
export async function openWire(
  endpoint: Endpoint,
  plan: Plan,
  era: 'modern' | 'legacy',
  timeoutMs: number,
  handshake = true,
): Promise<{ wire: Wire } | { error: string; wire?: Wire }> {
  const wire: Wire =
    endpoint.transport === 'stdio'
      ? new StdioWire(endpoint.command, endpoint.cwd)
      : new HttpWire({ url: endpoint.url, era, headers: endpoint.headers });
  const first = Math.max(timeoutMs, START_ALLOWANCE_MS);
  if (era === 'modern') {
    wire.revision = '2026-07-28';
    await listTools(wire, plan, era, first);
    return { wire };
  }
  if (!handshake) return { wire };
  const r = await wire.send({ message: initializeStep(plan) }, first);
  const result = r.answer?.result;
  if (!isObject(result)) {
    await wire.close();
    const why =
      r.gone ?? (r.timedOut ? `no answer within ${timeoutMs} ms` : `the answer was ${JSON.stringify(r.answer ?? null).slice(0, 200)}`);
    return { error: `the 2025 initialize handshake failed: ${why}`, wire };
  }
  if (typeof result.protocolVersion === 'string') wire.revision = result.protocolVersion;
  await wire.send({ message: { jsonrpc: '2.0', method: 'notifications/initialized' } }, timeoutMs);
  await listTools(wire, plan, era, timeoutMs);
  return { wire };
}

/** The recorded `tools/list`, sent again on a fresh connection as a client would: the validator
 * then knows the tools (their schemas, what they declare) when it judges the cases' answers, and a
 * finding's minimal session holds the same context. */
async function listTools(wire: Wire, plan: Plan, era: 'modern' | 'legacy', timeoutMs: number): Promise<void> {
  const recorded = callsOf(plan, era).find((c) => c.request.method === 'tools/list' && paramsOf(c.request).cursor === undefined);
  if (!recorded) return;
  await wire.send({ message: { ...recorded.request, id: LIST_ID } }, timeoutMs);
}
