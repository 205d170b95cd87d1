/**
 * The floor of the fuzz bench (fuzz-bench.ts): what the same number of requests costs with no
 * fuzzer in the way. A bare client (lib/raw-client: no frames kept, no validator, no judging)
 * sends the seed cassette's recorded `tools/call` requests, unmutated, one at a time, to the same
 * server build the fuzzer fuzzed, over stdio or Streamable HTTP, in the same era (a 2025 connection
 * opens with the recorded `initialize` first). Timed like a fuzz round: from the server's start to
 * its exit, and the CPU of this process and of the server.
 */
import { freshConnection, rawHttp } from '../../lib/raw-client/http.js';
import { RawStdioProcess } from '../../lib/raw-client/stdio.js';
import { callsOf, type Json, type Plan } from '../../validators/probes/plan.js';
import { modernHeaders } from '../../validators/probes/target.js';
import { HttpServerProcess, initializeStep } from '../../validators/fuzz/target.js';
import { cpuClock } from './proc.js';

export type Era = 'modern' | 'legacy';

export interface TimedRun {
  /** Requests (floor) or client messages (fuzz) sent. */
  requests: number;
  wallMs: number;
  /** CPU of this process (the client or the fuzzer), all threads. */
  selfCpuMs: number;
  /** CPU of the server processes started and ended within the run. */
  serverCpuMs: number;
  /** Time of each request (floor) or case (fuzz). */
  eachMs: number[];
}

const TIMEOUT_MS = 5000;

/** The era's recorded tools/call requests: what the floor sends, round robin. */
function recordedCalls(plan: Plan, era: Era): Json[] {
  const calls = callsOf(plan, era)
    .map((c) => c.request)
    .filter((r) => r.method === 'tools/call');
  if (!calls.length) throw new Error(`the seed cassette has no ${era} tools/call to send`);
  return calls;
}

/** Times `body` from before it starts the server to after the server has exited. */
export async function timed(body: (each: number[]) => Promise<number>): Promise<TimedRun> {
  const c0 = cpuClock();
  const t0 = performance.now();
  const eachMs: number[] = [];
  const requests = await body(eachMs);
  const wallMs = performance.now() - t0;
  const c1 = cpuClock();
  return { requests, wallMs, selfCpuMs: c1.selfMs - c0.selfMs, serverCpuMs: c1.childrenMs - c0.childrenMs, eachMs };
}

function expectResult(answer: Json | undefined, what: string): void {
  if (!answer || !('result' in answer)) throw new Error(`the floor's ${what} was answered ${JSON.stringify(answer ?? null).slice(0, 300)}`);
}

export function stdioFloor(command: string[], plan: Plan, era: Era, n: number): Promise<TimedRun> {
  const calls = recordedCalls(plan, era);
  return timed(async (each) => {
    const server = new RawStdioProcess({ command });
    try {
      if (era === 'legacy') {
        expectResult((await server.request(initializeStep(plan), TIMEOUT_MS)).response, 'initialize');
        server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      }
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        const r = await server.request({ ...calls[i % calls.length]!, id: i + 1 }, TIMEOUT_MS);
        each.push(performance.now() - t);
        expectResult(r.response, `call ${i + 1}`);
      }
    } finally {
      await server.close();
    }
    return n;
  });
}

/** `command` serves Streamable HTTP at `url` (a fixed port); it is started and stopped here. */
export function httpFloor(command: string[], url: string, plan: Plan, era: Era, n: number): Promise<TimedRun> {
  const calls = recordedCalls(plan, era);
  return timed(async (each) => {
    const server = new HttpServerProcess(command, url);
    const agent = freshConnection();
    const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const post = async (message: Json, headers: Record<string, string>) =>
      rawHttp({ url, body: message, headers: { ...base, ...headers }, timeoutMs: TIMEOUT_MS, dispatcher: agent, untilId: message.id });
    try {
      await server.start();
      let session: Record<string, string> = {};
      if (era === 'legacy') {
        const init = initializeStep(plan);
        const r = await post(init, {});
        expectResult(r.messages[0] as Json | undefined, 'initialize');
        const revision = String(((r.messages[0] as Json).result as Json).protocolVersion);
        session = { 'mcp-session-id': r.headers['mcp-session-id'] ?? '', 'mcp-protocol-version': revision };
        await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
      }
      for (let i = 0; i < n; i++) {
        const message = { ...calls[i % calls.length]!, id: i + 1 };
        const t = performance.now();
        const r = await post(message, era === 'modern' ? modernHeaders(message) : session);
        each.push(performance.now() - t);
        expectResult(r.messages.find((m) => (m as Json).id === i + 1) as Json | undefined, `call ${i + 1}`);
      }
    } finally {
      await agent.close();
      await server.stop();
    }
    return n;
  });
}
