/**
 * Streamable HTTP benchmarks (issue 7, scenarios 3 and 4): the same client and the same minimal
 * server (its own process, answering JSON or SSE) directly, through the HTTP floor (node:http +
 * a keep-alive agent + pipe), through `mcp-cassette record --upstream` with live validation on
 * and off, and through the peers:
 *   - talkback, an HTTP record/replay proxy, in the same place (in front of the HTTP server);
 *   - mcp-proxy and supergateway, which can only put a stdio server on HTTP: they sit in front of
 *     the same server's stdio mode, so they do the same work for the client from one hop, but not
 *     in the same place (their rows compare against the direct HTTP server).
 * Variants alternate in blocks within one run.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { agent, HttpSession } from './http-client.js';
import { pump } from './line-client.js';
import {
  benchServer,
  cli,
  firstLine,
  forceLoopback,
  httpFloor,
  loopbackPort,
  mcpProxyBin,
  memory,
  node,
  proxyNodeFlags,
  rssReport,
  sleep,
  start,
  stop,
  supergatewayBin,
  talkbackProxy,
} from './proc.js';
import { section, type Section } from './report.js';
import { fmt, int, summary } from './stats.js';

export type HttpVariant =
  | 'direct'
  | 'http floor'
  | 'mcp-cassette record'
  | 'record --no-validate'
  | 'talkback'
  | 'mcp-proxy'
  | 'supergateway';
const BASE: HttpVariant[] = ['direct', 'http floor', 'mcp-cassette record', 'record --no-validate'];
const OURS: HttpVariant[] = ['mcp-cassette record', 'record --no-validate'];
const BRIDGES: HttpVariant[] = ['mcp-proxy', 'supergateway'];
const PEER_NOTE: Partial<Record<HttpVariant, string>> = {
  talkback: 'talkback (NEW tapes)',
  'mcp-proxy': 'mcp-proxy (stdio server behind)',
  supergateway: 'supergateway --stateful (stdio server behind)',
};

/** Which peers to include: BENCH_PEERS=none, or a comma list (default: all three). */
function peers(): HttpVariant[] {
  const spec = process.env.BENCH_PEERS ?? 'talkback,mcp-proxy,supergateway';
  if (spec === 'none' || spec === '') return [];
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is HttpVariant => ['talkback', 'mcp-proxy', 'supergateway'].includes(s));
}

function variantsFor(format: 'json' | 'sse'): HttpVariant[] {
  const p = peers();
  // The bridges answer over SSE whatever their stdio server does: they belong with the SSE rows.
  return [...BASE, ...p.filter((v) => v === 'talkback' || format === 'sse')];
}

const label = (v: HttpVariant): string => PEER_NOTE[v] ?? v;

interface Upstream {
  url: string;
  child: ChildProcess;
}

async function upstream(format: 'json' | 'sse'): Promise<Upstream> {
  const child = start([benchServer, 'http', format]);
  return { url: await firstLine(child), child };
}

interface Target {
  variant: HttpVariant;
  url: string;
  /** The proxy process (undefined for direct). */
  proc?: ChildProcess;
  /** Where the preload writes the proxy's lifetime peak RSS. */
  rssFile?: string;
  stop(): Promise<void>;
}

async function startVariant(v: HttpVariant, up: string, dir: string, measureRss = false): Promise<Target> {
  const tag = v.replace(/\W+/g, '-');
  const rssFile = join(dir, `rss-${tag}-${Math.random().toString(36).slice(2)}`);
  const preload = measureRss ? ['--import', rssReport] : [];
  const env = measureRss ? { env: { ...process.env, BENCH_RSS_FILE: rssFile } } : {};
  const opts = { stdio: ['ignore', 'pipe', 'inherit'] as ('ignore' | 'pipe' | 'inherit')[], ...env };
  switch (v) {
    case 'direct':
      return { variant: v, url: up, stop: async () => {} };
    case 'http floor': {
      const proc = start([...preload, ...proxyNodeFlags(), httpFloor, up], opts);
      return { variant: v, url: await firstLine(proc), proc, stop: () => stop(proc) };
    }
    case 'mcp-cassette record':
    case 'record --no-validate': {
      const validate = v === 'record --no-validate' ? ['--no-validate'] : [];
      const cassette = join(dir, `${tag}-${Math.random().toString(36).slice(2)}.cassette.json`);
      const proc = start(
        [...preload, ...proxyNodeFlags(), cli, 'record', '--log-level', 'silent', ...validate, '--upstream', up, '--cassette', cassette],
        opts,
      );
      // SIGINT: the proxy stops listening, folds its journal into the cassette and exits.
      return { variant: v, url: await firstLine(proc), proc, rssFile, stop: () => stop(proc, 'SIGINT', 60_000) };
    }
    case 'talkback': {
      const tapes = join(dir, `tapes-${Math.random().toString(36).slice(2)}`);
      mkdirSync(tapes);
      const proc = start([...preload, talkbackProxy, up, tapes], opts);
      return { variant: v, url: await firstLine(proc), proc, stop: () => stop(proc) };
    }
    case 'mcp-proxy': {
      // Port 0; the preload (here only to say where it listens) reports the port it got.
      const proc = start(
        [...preload, '--require', forceLoopback, mcpProxyBin, '--host', '127.0.0.1', '--port', '0', '--', node, benchServer, 'stdio'],
        { ...opts, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      const port = await loopbackPort(proc);
      return { variant: v, url: `http://127.0.0.1:${port}/mcp`, proc, stop: () => stop(proc) };
    }
    case 'supergateway': {
      // No host option: the preload binds it to loopback (REAL-PEERS §1.3), and reports the port
      // it got for port 0.
      const proc = start(
        [
          ...preload,
          '--require',
          forceLoopback,
          supergatewayBin,
          '--stdio',
          `${node} ${benchServer} stdio`,
          '--outputTransport',
          'streamableHttp',
          '--stateful',
          '--port',
          '0',
          '--logLevel',
          'none',
        ],
        { ...opts, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      const port = await loopbackPort(proc);
      return { variant: v, url: `http://127.0.0.1:${port}/mcp`, proc, stop: () => stop(proc) };
    }
  }
}

async function withTargets<T>(
  variants: HttpVariant[],
  format: 'json' | 'sse',
  connections: number,
  fn: (targets: Target[], sessions: Map<HttpVariant, HttpSession>, agent: Agent) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-bench-'));
  const up = await upstream(format);
  const dispatcher = agent(connections);
  const targets: Target[] = [];
  try {
    for (const v of variants) targets.push(await startVariant(v, up.url, dir));
    const sessions = new Map<HttpVariant, HttpSession>();
    for (const t of targets) {
      const s = new HttpSession(t.url, dispatcher);
      await s.open();
      sessions.set(t.variant, s);
    }
    return await fn(targets, sessions, dispatcher);
  } finally {
    await dispatcher.close();
    await Promise.all(targets.map((t) => t.stop()));
    await stop(up.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** talkback writes a file per request (several ms): it gets a tenth of the requests. */
const share = (v: HttpVariant, n: number): number => Math.max(1, v === 'talkback' ? Math.round(n / 10) : n);

/** 3. Round trip: sequential `tools/call` POSTs, one in flight, latency per request. */
export async function httpRoundTrips(format: 'json' | 'sse', count: number, blocks: number): Promise<Section> {
  const out = section();
  const variants = variantsFor(format);
  const lat = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
  const types = new Map<HttpVariant, string>();
  await withTargets(variants, format, 1, async (_targets, sessions) => {
    for (const v of variants) for (let w = 0; w < share(v, 300); w++) await sessions.get(v)!.echo(w); // warm up
    const perBlock = Math.max(1, Math.round(count / blocks));
    for (let b = 0; b < blocks; b++) {
      for (const v of variants) {
        const s = sessions.get(v)!;
        for (let i = 0; i < share(v, perBlock); i++) {
          const t0 = performance.now();
          await s.echo(i);
          lat[v].push((performance.now() - t0) * 1000);
        }
      }
    }
    for (const v of variants) types.set(v, sessions.get(v)!.contentType);
  });
  const direct = summary(lat.direct).median;
  const floorAdded = summary(lat['http floor']).median - direct;
  const oursAdded = summary(lat['mcp-cassette record']).median - direct;
  const scenario = `3. HTTP round trip, ${format.toUpperCase()} answers (1 in flight)`;
  for (const v of variants) {
    const s = summary(lat[v]);
    const added = s.median - direct;
    let compared = v === 'direct' ? `${int(s.n)} calls (talkback a tenth)` : `+${int(added)} µs added`;
    if (OURS.includes(v)) compared += ` = ${fmt(added / floorAdded, 2)}x the floor's`;
    if (v === 'talkback') compared += ` = ${fmt(added / oursAdded, 1)}x mcp-cassette's`;
    if (BRIDGES.includes(v)) compared += ` vs the HTTP server; answers ${types.get(v)}`;
    out.rows.push({ scenario, variant: label(v), median: `${int(s.median)} µs`, tail: `${int(s.p99)} µs`, compared });
  }
  const ratio = oursAdded / floorAdded;
  out.targets.push({
    goal: `HTTP (${format.toUpperCase()}): added median latency (validation + recording on) <= 1.3x the HTTP floor's`,
    measured: `${fmt(ratio, 2)}x (+${int(oursAdded)} µs vs +${int(floorAdded)} µs)`,
    met: ratio <= 1.3,
  });
  if (variants.includes('talkback')) {
    const tb = (summary(lat.talkback).median - direct) / oursAdded;
    out.targets.push({
      goal: `HTTP (${format.toUpperCase()}): at least 10x less added latency than talkback`,
      measured: `talkback adds ${fmt(tb, 1)}x what mcp-cassette adds`,
      met: tb >= 10,
    });
  }
  return out;
}

/** 3. Throughput: `window` requests in flight over `window` keep-alive connections. */
export async function httpThroughput(format: 'json' | 'sse', count: number, window: number, blocks: number): Promise<Section> {
  const out = section();
  const variants = variantsFor(format);
  const rates = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
  await withTargets(variants, format, window, async (_targets, sessions) => {
    for (const v of variants) await pump(share(v, 1000), window, (i) => sessions.get(v)!.echo(i)); // warm up
    const perBlock = Math.max(window, Math.round(count / blocks));
    for (let b = 0; b < blocks; b++) {
      for (const v of variants) {
        const n = share(v, perBlock);
        const seconds = await pump(n, window, (i) => sessions.get(v)!.echo(i));
        rates[v].push(n / seconds);
      }
    }
  });
  const direct = summary(rates.direct).median;
  const floor = summary(rates['http floor']).median;
  for (const v of variants) {
    const s = summary(rates[v]);
    out.rows.push({
      scenario: `3. HTTP throughput, ${format.toUpperCase()} answers (${window} in flight)`,
      variant: label(v),
      median: `${int(s.median)} calls/s`,
      tail: `${int(s.p1)} calls/s`,
      compared:
        v === 'direct'
          ? `${blocks} blocks`
          : `${fmt((100 * s.median) / direct, 0)}% of direct${v === 'http floor' ? '' : `, ${fmt((100 * s.median) / floor, 0)}% of the floor`}`,
    });
  }
  return out;
}

/** A large answer that has not arrived by then counts as a failure of that variant. */
const LARGE_DEADLINE_MS = 60_000;

/**
 * 4. Large message over HTTP: one `tools/call` answered with `mb` MB (JSON, or one SSE event),
 * fresh proxies each round. Time to the last byte; the proxy's peak RSS while forwarding (VmHWM
 * right after the answer) and, for mcp-cassette, over its life (incl. the cassette write).
 */
export async function httpLargeMessage(format: 'json' | 'sse', rounds: number, mb: number): Promise<Section> {
  const out = section();
  const variants = variantsFor(format).filter((v) => v !== 'talkback' || process.env.BENCH_LARGE_TALKBACK === '1');
  const times = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
  const forwarding = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
  const lifetime = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
  const failed: Partial<Record<HttpVariant, string>> = {};
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-bench-'));
  const up = await upstream(format);
  let sizeMb = mb;
  try {
    for (let i = 0; i < rounds; i++) {
      for (const v of variants) {
        // The peers take half a minute or more for 50 MB (or fail): one round each is enough.
        if (failed[v] || (i > 0 && !BASE.includes(v))) continue;
        const t = await startVariant(v, up.url, dir, true);
        const dispatcher = agent(1, LARGE_DEADLINE_MS);
        try {
          const s = new HttpSession(t.url, dispatcher);
          await s.open();
          const a = await s.post('tools/call', { name: 'big', arguments: { mb } }, false, undefined, LARGE_DEADLINE_MS);
          if (a.bytes < mb * 1024 * 1024)
            throw new Error(`answered ${a.bytes} bytes: ${/"error":\{[^}]*\}/.exec(a.head)?.[0] ?? a.head.slice(0, 160)}`);
          if (v === 'direct') sizeMb = a.bytes / 1024 / 1024;
          times[v].push(a.lastByteMs);
          if (t.proc) forwarding[v].push(memory(t.proc.pid!)?.peakMb ?? NaN);
        } catch (err) {
          const e = err as Error;
          failed[v] =
            e.name === 'TimeoutError' || e.name === 'AbortError' || /timeout/i.test(e.name)
              ? `no complete answer within ${LARGE_DEADLINE_MS / 1000} s`
              : e.message.split('\n')[0]!.slice(0, 200);
        } finally {
          await dispatcher.close().catch(() => undefined);
          await t.stop();
        }
        if (OURS.includes(v) && !failed[v]) lifetime[v].push(Number(readFileSync(t.rssFile!, 'utf8')));
      }
    }
  } finally {
    await stop(up.child);
    rmSync(dir, { recursive: true, force: true });
  }
  const direct = summary(times.direct).median;
  for (const v of variants) {
    const s = summary(times[v]);
    const f = summary(forwarding[v]).median;
    const l = summary(lifetime[v]).median;
    const scenario = `4. HTTP ${fmt(sizeMb, 0)} MB tool result, ${format.toUpperCase()}`;
    if (failed[v]) {
      out.rows.push({ scenario, variant: label(v), median: 'failed', tail: '', compared: failed[v]! });
      continue;
    }
    out.rows.push({
      scenario,
      variant: label(v),
      median: `${int(s.median)} ms`,
      tail: `${int(s.p99)} ms`,
      compared:
        v === 'direct'
          ? `${rounds} round${rounds === 1 ? '' : 's'} (peers: 1)`
          : `+${int(s.median - direct)} ms; proxy peak RSS ${int(f)} MB forwarding (${fmt(f / sizeMb, 1)}x)${OURS.includes(v) ? `, ${int(l)} MB incl. cassette write (${fmt(l / sizeMb, 1)}x)` : ''}`,
    });
  }
  const worstF = Math.max(...OURS.map((v) => summary(forwarding[v]).median)) / sizeMb;
  const worstL = Math.max(...OURS.map((v) => summary(lifetime[v]).median)) / sizeMb;
  out.targets.push({
    goal: `${fmt(sizeMb, 0)} MB message over HTTP ${format.toUpperCase()}: proxy peak RSS <= 3x the message, while forwarding`,
    measured: OURS.map((v) => `${v}: ${fmt(summary(forwarding[v]).median / sizeMb, 1)}x`).join(', '),
    met: worstF <= 3,
  });
  out.targets.push({
    goal: `${fmt(sizeMb, 0)} MB message over HTTP ${format.toUpperCase()}: proxy peak RSS <= 3x the message, over the proxy's life (incl. the cassette write)`,
    measured: OURS.map((v) => `${v}: ${fmt(summary(lifetime[v]).median / sizeMb, 1)}x`).join(', '),
    met: worstL <= 3,
  });
  return out;
}

/**
 * 4. No full-stream buffering of SSE: `tools/call stream` makes the server send a progress event
 * at once and the answer `delayMs` later on the same SSE stream. A proxy that streams delivers
 * the progress event about `delayMs` before the end; one that buffers delivers both together.
 */
export async function sseStreaming(rounds: number, delayMs: number): Promise<Section> {
  const out = section();
  const variants = variantsFor('sse');
  const gaps = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
  const firsts = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
  await withTargets(variants, 'sse', 1, async (_targets, sessions) => {
    for (let i = 0; i < rounds; i++) {
      for (const v of variants) {
        let progressAt = NaN;
        const a = await sessions
          .get(v)!
          .post('tools/call', { name: 'stream', arguments: { ms: delayMs }, _meta: { progressToken: `p${i}` } }, false, (chunk, ms) => {
            if (Number.isNaN(progressAt) && chunk.includes('notifications/progress')) progressAt = ms;
          });
        firsts[v].push(progressAt);
        gaps[v].push(a.lastByteMs - progressAt);
      }
    }
  });
  const streamed = (v: HttpVariant): boolean => summary(gaps[v]).median >= delayMs / 2;
  for (const v of variants) {
    const g = summary(gaps[v]);
    out.rows.push({
      scenario: `4. SSE streaming (progress event, answer ${delayMs} ms later)`,
      variant: label(v),
      median: `${fmt(summary(firsts[v]).median)} ms`,
      tail: `${fmt(summary(firsts[v]).p99)} ms`,
      compared: `progress arrived ${fmt(g.median)} ms before the end: ${Number.isNaN(g.median) ? 'progress event not delivered' : streamed(v) ? 'streamed' : 'BUFFERED'}`,
    });
  }
  const ok = OURS.every(streamed);
  out.targets.push({
    goal: 'No full-stream buffering of SSE',
    measured: OURS.map((v) => `${v}: ${streamed(v) ? 'streamed' : 'buffered'}`).join(', '),
    met: ok,
  });
  return out;
}

/**
 * 4. A slow client on a long SSE stream: an upstream in this process sends `mb` MB of 64 KB
 * events as fast as its socket takes them, and the client reads none of it until the upstream has
 * written nothing for half a second (held back), then a megabyte at a time, each time once the
 * upstream is blocked again. What the proxy's RSS grows by over its RSS before the stream, at its
 * largest (sampled whenever the upstream is held), is what the stream costs it: a proxy that
 * streams keeps about its socket buffers and chunks in flight, one that buffers holds all `mb` MB.
 * (The test suite checks the behaviour behind this, without a memory figure:
 * test/recorder/http-faults.test.ts, "a slow client does not make the proxy buffer the stream".)
 */
export async function slowClientStream(rounds: number, mb: number): Promise<Section> {
  const out = section();
  const variants: HttpVariant[] = ['http floor', 'record --no-validate', 'mcp-cassette record'];
  const growth = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
  const chunk = Buffer.from(
    `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(64 * 1024) } })}\n\n`,
  );
  const count = Math.ceil((mb * 1024 * 1024) / chunk.length);
  const state = { written: 0, blocked: false, ended: false };
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const pump = (): void => {
      state.blocked = false;
      while (i < count) {
        i += 1;
        state.written += chunk.length;
        if (!res.write(chunk)) {
          state.blocked = true;
          res.once('drain', pump);
          return;
        }
      }
      res.end();
      state.ended = true;
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const up = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-bench-'));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const v of variants) {
        Object.assign(state, { written: 0, blocked: false, ended: false });
        const t = await startVariant(v, up, dir);
        const dispatcher = agent(1, LARGE_DEADLINE_MS);
        try {
          const pid = t.proc!.pid!;
          const before = memory(pid)!.rssMb;
          let most = 0;
          const sample = (): void => {
            most = Math.max(most, memory(pid)?.rssMb ?? NaN);
          };
          const res = await dispatcher.request({
            origin: new URL(t.url).origin,
            path: new URL(t.url).pathname,
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'stream' } }),
          });
          // Held back: nothing written for half a second (a benchmark may wait on the clock).
          for (let last = -1; last !== state.written && !state.ended; ) {
            last = state.written;
            await sleep(500);
          }
          sample();
          let step = 0;
          for await (const c of res.body) {
            step += (c as Buffer).length;
            if (step < 1024 * 1024) continue;
            step = 0;
            while (!state.blocked && !state.ended) await new Promise((r) => setImmediate(r));
            sample();
          }
          growth[v].push(most - before);
        } finally {
          await dispatcher.close().catch(() => undefined);
          await t.stop();
        }
      }
    }
  } finally {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
  const sizeMb = (count * chunk.length) / 1024 / 1024;
  for (const v of variants) {
    const s = summary(growth[v]);
    out.rows.push({
      scenario: `4. slow client on a ${fmt(sizeMb, 0)} MB SSE stream: proxy RSS growth`,
      variant: label(v),
      median: `${int(s.median)} MB`,
      tail: `${int(s.max)} MB`,
      compared: `${fmt(s.median / sizeMb, 2)}x the stream (holding it all: 1x)${v === 'mcp-cassette record' ? ", with the live validator's worker" : ''}; ${rounds} round${rounds === 1 ? '' : 's'}`,
    });
  }
  // Forwarding and recording: the live validator's worker keeps its own bound (64 MB of unjudged
  // traffic, then it stops for the session), shown in the validating row but not in the target.
  const forwarding = summary(growth['record --no-validate']).median;
  out.targets.push({
    goal: `Slow client on a ${fmt(sizeMb, 0)} MB SSE stream: the proxy's RSS (record --no-validate) grows by under 85% of the stream (a proxy that buffers holds all of it)`,
    measured: `+${int(forwarding)} MB (${fmt(forwarding / sizeMb, 2)}x); with live validation +${int(summary(growth['mcp-cassette record']).median)} MB`,
    met: forwarding < 0.85 * sizeMb,
  });
  return out;
}
