/**
 * Scenario 9 (issue 17): live validation at production load. autocannon drives `tools/call` over
 * Streamable HTTP at 1, 8 and 32 connections, JSON and SSE answers, 2026-07-28 stateless requests
 * and a 2025 session, through the node:http floor, `record --no-validate`, `record` and
 * `record --validate-workers 2`; a stdio client keeps a window of calls in flight through the pipe
 * floor and the same recorders. Per variant: throughput, p50/p99 latency, and the proxy process's
 * CPU time (all its threads, /proc/<pid>/stat, counted until the proxy is idle again so the
 * validator's catch-up is included) per request. Variants run back to back for each setting.
 *
 *   BENCH_LOAD_SECONDS   seconds per HTTP run (5)
 *   BENCH_LOAD_CONNS     connection counts (1,8,32)
 *   BENCH_LOAD_MODES     stateless,sessions (both)
 *   BENCH_LOAD_FORMATS   json,sse (both)
 *   BENCH_LOAD_VARIANTS  floor,no-validate,record,workers2 (all)
 *   BENCH_LOAD_STDIO     stdio calls per variant and window (40000; 0 skips stdio)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { LineClient, pump } from './line-client.js';
import { benchServer, cli, ended, firstLine, httpFloor, memory, node, pipeFloor, proxyNodeFlags, sleep, start, stop } from './proc.js';
import { section, type Section } from './report.js';
import { fmt, int } from './stats.js';

type Variant = 'floor' | 'no-validate' | 'record' | 'workers2';
const LABEL: Record<Variant, string> = {
  floor: 'floor',
  'no-validate': 'record --no-validate',
  record: 'record',
  workers2: 'record --validate-workers 2',
};
type Mode = 'stateless' | 'sessions';
const MODE_LABEL: Record<Mode, string> = { stateless: '2026-07-28 stateless', sessions: '2025 session' };

const list = <T extends string>(name: string, all: readonly T[]): T[] => {
  const v = process.env[name];
  return v ? (v.split(',').map((s) => s.trim()) as T[]).filter((s) => all.includes(s)) : [...all];
};

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const HZ = 100;

/** CPU seconds (user + system, all threads) the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / HZ;
}

/** Waits until the process stops using CPU (the validator caught up), at most `maxMs`. */
async function settle(pid: number, maxMs = 30_000): Promise<void> {
  const until = Date.now() + maxMs;
  let last = cpuSeconds(pid);
  while (Date.now() < until) {
    await sleep(250);
    const now = cpuSeconds(pid);
    if (now - last <= 0.01) return;
    last = now;
  }
}

export interface LoadResult {
  variant: Variant;
  rate: number;
  p50: number;
  p99: number;
  cpuUs: number;
  requests: number;
  errors: number;
  rssMb: number;
}

interface Proxy {
  url: string;
  proc: ChildProcess;
}

async function startHttp(v: Variant, up: string, dir: string): Promise<Proxy> {
  const opts = { stdio: ['ignore', 'pipe', 'inherit'] as ('ignore' | 'pipe' | 'inherit')[] };
  if (v === 'floor') {
    const proc = start([...proxyNodeFlags(), httpFloor, up], opts);
    return { url: await firstLine(proc), proc };
  }
  const extra = v === 'no-validate' ? ['--no-validate'] : v === 'workers2' ? ['--validate-workers', '2'] : [];
  const cassette = join(dir, `${v}-${Math.random().toString(36).slice(2)}.cassette.json`);
  const proc = start(
    [...proxyNodeFlags(), cli, 'record', '--log-level', 'silent', ...extra, '--upstream', up, '--cassette', cassette],
    opts,
  );
  return { url: await firstLine(proc), proc };
}

const MODERN_META =
  '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"mcp-cassette-bench","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}';

/** Opens a 2025 session through `url`; its Mcp-Session-Id (the soak bench uses it too). */
export async function openSession(url: string): Promise<string> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-cassette-bench","version":"1.0.0"}}}',
  });
  await init.text();
  const sid = init.headers.get('mcp-session-id');
  if (!sid) throw new Error(`initialize through ${url} gave no Mcp-Session-Id`);
  const note = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  await note.text();
  return sid;
}

/** One autocannon run of `tools/call echo`, every request with an id of its own. */
async function cannon(url: string, mode: Mode, session: string | undefined, connections: number, seconds: number, ids: { next: number }) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-method': 'tools/call',
    'mcp-name': 'echo',
    'mcp-protocol-version': mode === 'stateless' ? '2026-07-28' : '2025-11-25',
    ...(session ? { 'mcp-session-id': session } : {}),
  };
  const meta = mode === 'stateless' ? `,${MODERN_META}` : '';
  return autocannon({
    url,
    connections,
    duration: seconds,
    method: 'POST',
    headers,
    requests: [
      {
        setupRequest: (req) => {
          const id = ids.next++;
          return {
            ...req,
            body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"n":${id}}${meta}}}`,
          };
        },
      },
    ],
  });
}

async function measure(proxy: Proxy, run: () => Promise<{ requests: number; rate: number; p50: number; p99: number; errors: number }>) {
  const pid = proxy.proc.pid!;
  await settle(pid);
  const before = cpuSeconds(pid);
  const r = await run();
  await settle(pid);
  const cpu = cpuSeconds(pid) - before;
  return { ...r, cpuUs: (cpu * 1e6) / Math.max(1, r.requests), rssMb: memory(pid)?.peakMb ?? NaN };
}

/** The HTTP part: every mode × format, each connection count, the variants back to back. */
export async function httpLoad(out: LoadResult[][], labels: string[], seconds: number): Promise<void> {
  const variants = list<Variant>('BENCH_LOAD_VARIANTS', ['floor', 'no-validate', 'record', 'workers2']);
  const conns = (process.env.BENCH_LOAD_CONNS ?? '1,8,32').split(',').map(Number);
  for (const mode of list<Mode>('BENCH_LOAD_MODES', ['stateless', 'sessions'])) {
    for (const format of list<'json' | 'sse'>('BENCH_LOAD_FORMATS', ['json', 'sse'])) {
      const dir = mkdtempSync(join(tmpdir(), 'mcpc-load-'));
      const up = start([benchServer, 'http', format, ...(mode === 'sessions' ? ['sessions'] : [])]);
      const upUrl = await firstLine(up);
      const proxies = new Map<Variant, Proxy>();
      const sessions = new Map<Variant, string>();
      const ids = new Map<Variant, { next: number }>();
      try {
        for (const v of variants) {
          const p = await startHttp(v, upUrl, dir);
          proxies.set(v, p);
          ids.set(v, { next: 1 });
          if (mode === 'sessions') sessions.set(v, await openSession(p.url));
          await cannon(p.url, mode, sessions.get(v), 8, 1, ids.get(v)!); // warm up
        }
        for (const c of conns) {
          const row: LoadResult[] = [];
          for (const v of variants) {
            const p = proxies.get(v)!;
            process.stderr.write(` [${mode} ${format} ${c}c ${v}]`);
            const r = await measure(p, async () => {
              const a = await cannon(p.url, mode, sessions.get(v), c, seconds, ids.get(v)!);
              return {
                requests: a['2xx'] + a.non2xx,
                rate: (a['2xx'] + a.non2xx) / a.duration,
                p50: a.latency.p50,
                p99: a.latency.p99,
                errors: a.errors + a.non2xx + a.timeouts,
              };
            });
            row.push({ variant: v, ...r });
          }
          out.push(row);
          labels.push(`HTTP ${format.toUpperCase()}, ${MODE_LABEL[mode]}, ${c} conn${c === 1 ? '' : 's'}`);
        }
      } finally {
        await Promise.all([...proxies.values()].map((p) => stop(p.proc, 'SIGINT', 120_000)));
        await stop(up);
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
}

/** The stdio part: `count` calls with `window` in flight, per variant, back to back. */
export async function stdioLoad(out: LoadResult[][], labels: string[], count: number, windows: number[]): Promise<void> {
  const variants = list<Variant>('BENCH_LOAD_VARIANTS', ['floor', 'no-validate', 'record', 'workers2']);
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-load-'));
  const server = [benchServer, 'stdio'];
  const running = variants.map((v) => {
    const argv =
      v === 'floor'
        ? [...proxyNodeFlags(), pipeFloor, node, ...server]
        : [
            ...proxyNodeFlags(),
            cli,
            'record',
            '--log-level',
            'silent',
            ...(v === 'no-validate' ? ['--no-validate'] : v === 'workers2' ? ['--validate-workers', '2'] : []),
            '--cassette',
            join(dir, `${v}.cassette.json`),
            '--',
            node,
            ...server,
          ];
    const proc = start(argv, { stdio: ['pipe', 'pipe', 'inherit'] });
    return { v, proc, client: new LineClient(proc.stdout!, proc.stdin!) };
  });
  try {
    for (const r of running) {
      await r.client.handshake();
      await pump(2000, 32, (i) => r.client.echo(i)); // warm up (and past the validator's start delay)
    }
    await sleep(1500);
    for (const window of windows) {
      const row: LoadResult[] = [];
      for (const r of running) {
        process.stderr.write(` [stdio w${window} ${r.v}]`);
        const lat: number[] = [];
        const m = await measure({ url: '', proc: r.proc }, async () => {
          const seconds = await pump(count, window, async (i) => {
            const t0 = performance.now();
            await r.client.echo(i);
            lat.push(performance.now() - t0);
          });
          lat.sort((a, b) => a - b);
          return {
            requests: count,
            rate: count / seconds,
            p50: lat[Math.floor(lat.length / 2)]!,
            p99: lat[Math.floor(lat.length * 0.99)]!,
            errors: 0,
          };
        });
        row.push({ variant: r.v, ...m });
      }
      out.push(row);
      labels.push(`stdio, ${window} in flight`);
    }
  } finally {
    for (const r of running) r.proc.stdin!.end();
    await Promise.all(running.map((r) => Promise.race([ended(r.proc), sleep(120_000).then(() => stop(r.proc, 'SIGKILL'))])));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Scenario 9 as a section of `npm run bench`. */
export async function loadBench(seconds: number, stdioCount: number): Promise<Section> {
  const s = section();
  const rows: LoadResult[][] = [];
  const labels: string[] = [];
  await httpLoad(rows, labels, seconds);
  if (stdioCount > 0) await stdioLoad(rows, labels, stdioCount, [1, 32]);
  process.stderr.write('\n');
  for (let i = 0; i < rows.length; i++) {
    const floor = rows[i]!.find((r) => r.variant === 'floor');
    for (const r of rows[i]!) {
      const cpuX = floor ? r.cpuUs / floor.cpuUs : NaN;
      const rateX = floor ? r.rate / floor.rate : NaN;
      s.rows.push({
        scenario: `9. ${labels[i]}`,
        variant: LABEL[r.variant],
        median: `${int(r.rate)} req/s (${fmt(rateX * 100, 0)}%)`,
        tail: `p50 ${fmt(r.p50, 2)} / p99 ${fmt(r.p99, 2)} ms`,
        compared: `CPU ${int(r.cpuUs)} µs/req (${fmt(cpuX, 2)}x floor), peak RSS ${int(r.rssMb)} MB${r.errors ? `, ${r.errors} errors` : ''}`,
      });
    }
    if (!floor) continue;
    const rec = rows[i]!.find((r) => r.variant === 'record');
    const bare = rows[i]!.find((r) => r.variant === 'no-validate');
    if (rec) {
      const x = rec.cpuUs / floor.cpuUs;
      s.targets.push({ goal: `${labels[i]}: CPU with validation <= 1.5x floor`, measured: `${fmt(x, 2)}x`, met: x <= 1.5 });
    }
    if (bare) {
      const x = bare.cpuUs / floor.cpuUs;
      s.targets.push({ goal: `${labels[i]}: CPU recording alone <= 1.2x floor`, measured: `${fmt(x, 2)}x`, met: x <= 1.2 });
    }
    if (rec && labels[i]!.includes('32 conns')) {
      const share = rec.rate / floor.rate;
      const p99 = rec.p99 / floor.p99;
      s.targets.push({ goal: `${labels[i]}: throughput >= 70% of floor`, measured: `${fmt(share * 100, 0)}%`, met: share >= 0.7 });
      s.targets.push({ goal: `${labels[i]}: p99 <= 2x floor`, measured: `${fmt(p99, 2)}x`, met: p99 <= 2 });
    }
  }
  return s;
}
