#!/usr/bin/env node
/**
 * The live validation path alone, in one process: a real JournalWriter and LiveTap with the real
 * worker (validators/live-worker.js), fed the records the HTTP recorder writes for `tools/call`
 * exchanges (2026-07-28 stateless, or one 2025 session), or the chunks the stdio recorder hands
 * on. Reports the process's CPU time (all threads) per exchange or call, with the tap and
 * without it (the journal alone): the difference is what live validation costs the proxy, free
 * of sockets, servers and load generators, so it holds on a busy machine. Each round first sends
 * 3,000 warm-up exchanges (the validator compiles its schemas on first use) and waits until they
 * are judged; the measure then runs until the worker has judged everything (lib/live-stats.ts).
 *
 * It also reports what the validator alone costs for the same messages, in this thread with no
 * journal, worker or framing: each frame parsed (lib/message.ts frameToMessage) and judged by the
 * live validator (validators/live.ts) as the worker calls it. The live path minus that is the
 * plumbing around the rules (issue 35).
 *
 *   node dist/test/bench/live-path-bench.js [stateless|session|stdio] [count=20000] [rounds=3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JournalWriter } from '../../lib/cassette/journal.js';
import { liveValidationStats } from '../../lib/live-stats.js';
import { LiveTap } from '../../recorder/live-tap.js';
import { frameToMessage } from '../../lib/message.js';
import { createLogger } from '../../lib/log.js';
import { createLiveValidator } from '../../validators/live.js';

const [mode = 'stateless', countArg = '20000', roundsArg = '3'] = process.argv.slice(2);
const count = Number(countArg);
const script = fileURLToPath(new URL('../../validators/live-worker.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mcpc-livepath-'));
const META =
  '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"b","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}';
const SERVER_META = '"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench-server","version":"1.0.0"}}';

function cpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000; // ms
}

async function round(withTap: boolean, n: number): Promise<number> {
  const http = mode !== 'stdio';
  const header = {
    format: 'mcp-cassette-journal',
    version: 1,
    sessionId: `bench-${n}`,
    startedAt: new Date().toISOString(),
    pid: process.pid,
    hostname: 'bench',
    session: http ? { transport: 'streamable-http', target: { url: 'http://127.0.0.1:1/mcp' } } : { target: { command: ['x'] } },
  };
  const journal = new JournalWriter(join(dir, `j-${n}-${withTap}.jsonl`), header as never, performance.now());
  const tap = withTap ? new LiveTap(journal, () => {}) : undefined;
  if (tap) {
    tap.start({
      script,
      data: {
        sessionId: `bench-${n}`,
        logLevel: 'silent',
        ...(http ? { transport: 'streamable-http', target: { url: 'http://127.0.0.1:1/mcp', listen: 'http://127.0.0.1:2/mcp' } } : {}),
      },
    });
    if (http) journal.onRecord = (record, line) => tap.record(record, line);
  }
  const headers = { host: '127.0.0.1:2', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const session = mode === 'session' ? { 'mcp-session-id': 'bench-session' } : {};
  let x = 0;
  let id = 0;
  if (mode === 'session') {
    // The handshake that opens the session.
    x++;
    journal.event('http-request', { x, method: 'POST', path: '/mcp', headers, mcp: true });
    journal.chunk(
      'http-request',
      Buffer.from(
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}',
      ),
      x,
    );
    journal.event('http-request-end', { x });
    journal.event('http-response', { x, status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': 'bench-session' } });
    journal.chunk(
      'http-response',
      Buffer.from(
        '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}',
      ),
      x,
    );
    journal.event('http-end', { x, outcome: 'complete' });
  } else if (mode === 'stdio') {
    const init = Buffer.from(
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}\n',
    );
    journal.chunk('stdin', init);
    tap?.chunk('stdin', init, 0);
  }

  const traffic = async (n: number): Promise<void> => {
    for (let k = 1; k <= n; k++) {
      const i = ++id;
      const meta = mode === 'stateless' ? `,${META}` : '';
      const req = Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"echo","arguments":{"n":${i}}${meta}}}`);
      const res = Buffer.from(
        `{"jsonrpc":"2.0","id":${i},"result":{${mode === 'stateless' ? `${SERVER_META},` : ''}"content":[{"type":"text","text":"${i}"}]}}`,
      );
      if (mode === 'stdio') {
        const a = Buffer.concat([req, Buffer.from('\n')]);
        const b = Buffer.concat([res, Buffer.from('\n')]);
        journal.chunk('stdin', a);
        tap?.chunk('stdin', a, i);
        journal.chunk('stdout', b);
        tap?.chunk('stdout', b, i);
      } else {
        x++;
        const h = {
          ...headers,
          ...session,
          'mcp-protocol-version': mode === 'stateless' ? '2026-07-28' : '2025-11-25',
          'mcp-method': 'tools/call',
          'mcp-name': 'echo',
        };
        journal.event('http-request', { x, method: 'POST', path: '/mcp', headers: h, mcp: true });
        journal.chunk('http-request', req, x);
        journal.event('http-request-end', { x });
        journal.event('http-response', { x, status: 200, headers: { 'content-type': 'application/json' } });
        journal.chunk('http-response', res, x);
        journal.event('http-end', { x, outcome: 'complete' });
      }
      if (k % 500 === 0) await new Promise((r) => setImmediate(r)); // let the tap's timers run
    }
  };
  const judged = async (): Promise<void> => {
    const stats = liveValidationStats();
    while (tap && stats.backlogBytes > 0) await new Promise((r) => setTimeout(r, 5));
  };
  await traffic(3000);
  await judged();
  const t0 = cpu();
  await traffic(count);
  await judged();
  const spent = cpu() - t0;
  await tap?.finish();
  journal.close();
  return spent;
}

/** The same traffic straight into the live validator, as the worker calls it: the CPU (this thread)
 * per exchange or call of parsing and judging alone. */
async function validatorAlone(n: number, base: number): Promise<number> {
  const validator = createLiveValidator({ logger: await createLogger({ level: 'silent' }), namesSession: mode !== 'stdio' });
  const target = { url: 'http://127.0.0.1:1/mcp', listen: 'http://127.0.0.1:2/mcp' };
  const http = (x: number, part: 'request' | 'response') => ({ http: { exchange: x, part } });
  const message = (text: string, seq: number, client: boolean, x?: number) =>
    frameToMessage(Buffer.from(text), {
      seq,
      t: seq,
      direction: client ? 'client-to-server' : 'server-to-client',
      channel: mode === 'stdio' ? (client ? 'stdin' : 'stdout') : 'http',
      terminated: true,
      ...(x === undefined ? {} : http(x, client ? 'request' : 'response')),
    });
  const init = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`;
  const initAnswer = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`;
  const sessionOf = (i: number) =>
    mode === 'stdio'
      ? { id: 'bench', transport: 'stdio' as const }
      : {
          id: mode === 'stateless' ? `x-${i}` : 'bench',
          transport: 'streamable-http' as const,
          target,
          ...(mode === 'session' ? { mcpSessionId: 'bench-session' } : {}),
        };
  const exchangeOf = (i: number) => ({
    id: i,
    t: i,
    method: 'POST',
    path: '/mcp',
    requestHeaders: {
      host: '127.0.0.1:2',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': mode === 'stateless' ? '2026-07-28' : '2025-11-25',
      ...(mode === 'session' ? { 'mcp-session-id': 'bench-session' } : {}),
    },
    outcome: 'complete' as const,
    mcp: true,
  });
  let seq = 0;
  if (mode !== 'stateless') {
    const x = mode === 'session' ? exchangeOf(0) : undefined;
    validator.message(sessionOf(0), message(init(0), ++seq, true, x?.id), x);
    validator.message(sessionOf(0), message(initAnswer(0), ++seq, false, x?.id), x);
  }
  const judge = (from: number, count: number): void => {
    for (let i = from; i < from + count; i++) {
      const meta = mode === 'stateless' ? `,${META}` : '';
      const req = `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"echo","arguments":{"n":${i}}${meta}}}`;
      const res = `{"jsonrpc":"2.0","id":${i},"result":{${mode === 'stateless' ? `${SERVER_META},` : ''}"content":[{"type":"text","text":"${i}"}]}}`;
      const session = sessionOf(i);
      if (mode === 'stdio') {
        validator.message(session, message(req, ++seq, true));
        validator.message(session, message(res, ++seq, false));
        continue;
      }
      const x: Parameters<typeof validator.message>[2] = exchangeOf(i);
      const first = message(req, mode === 'stateless' ? 1 : ++seq, true, i);
      validator.message(session, first, x);
      Object.assign(x!, { status: 200, responseHeaders: { 'content-type': 'application/json' }, contentType: 'application/json' });
      validator.message(session, message(res, mode === 'stateless' ? 2 : ++seq, false, i), x);
      x!.endT = i + 0.5;
      validator.exchangeEnd({ id: session.id }, x!, first);
      if (mode === 'stateless') validator.endSession(session.id, { reason: 'exit' });
    }
  };
  judge(base, 3000); // warm-up: the schemas compile on first use
  const t0 = cpu();
  judge(base + 3000, n);
  return cpu() - t0;
}

try {
  const rounds = Number(roundsArg);
  const bare: number[] = [];
  const live: number[] = [];
  const alone: number[] = [];
  for (let r = 0; r < rounds; r++) {
    bare.push(await round(false, r));
    live.push(await round(true, r));
    alone.push(await validatorAlone(count, (r + 1) * 1_000_000));
  }
  const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  const per = (ms: number): string => `${((ms * 1000) / count).toFixed(1)} µs`;
  process.stdout.write(
    `${mode}, ${count} ${mode === 'stdio' ? 'calls (2 messages each)' : 'exchanges'}, median of ${rounds}: journal alone ${per(median(bare))}, ` +
      `journal + live validation ${per(median(live))}, live validation ${per(median(live) - median(bare))} per ${mode === 'stdio' ? 'call' : 'exchange'} (CPU, all threads); ` +
      `of which parsing and judging alone ${per(median(alone))}, the plumbing around them ${per(median(live) - median(bare) - median(alone))}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
