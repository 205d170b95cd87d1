/**
 * stdio benchmarks (issue 7, scenarios 1, 2, 4, 5 and 7): the same client talks to the same
 * minimal server directly, through the pipe floor (spawn + pipe(), nothing else) and through
 * `mcp-cassette record` with live validation on and off. The variants alternate in blocks within
 * one run, so machine noise hits all of them alike.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineClient, pump } from './line-client.js';
import { benchServer, cli, ended, memory, node, pipeFloor, proxyNodeFlags, rssReport, start } from './proc.js';
import { section, type Section } from './report.js';
import { fmt, int, linearFit, summary } from './stats.js';

export type Variant = 'direct' | 'pipe floor' | 'mcp-cassette record' | 'record --no-validate';
export const VARIANTS: Variant[] = ['direct', 'pipe floor', 'mcp-cassette record', 'record --no-validate'];
const PROXIES: Variant[] = ['mcp-cassette record', 'record --no-validate'];

function argvFor(variant: Variant, cassette: string, preload: string[] = []): string[] {
  const server = [benchServer, 'stdio'];
  if (variant === 'direct') return server;
  if (variant === 'pipe floor') return [...preload, ...proxyNodeFlags(), pipeFloor, node, ...server];
  const validate = variant === 'record --no-validate' ? ['--no-validate'] : [];
  return [
    ...preload,
    ...proxyNodeFlags(),
    cli,
    'record',
    '--log-level',
    'silent',
    ...validate,
    '--cassette',
    cassette,
    '--',
    node,
    ...server,
  ];
}

interface Running {
  variant: Variant;
  child: ChildProcess;
  client: LineClient;
}

function launch(variant: Variant, cassette: string, env?: NodeJS.ProcessEnv, preload?: string[]): Running {
  const child = start(argvFor(variant, cassette, preload), env ? { env } : {});
  return { variant, child, client: new LineClient(child.stdout!, child.stdin!) };
}

async function close(r: Running): Promise<void> {
  r.child.stdin!.end();
  await ended(r.child);
}

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'mcpc-bench-'));
}

const added = (median: number, direct: number): number => median - direct;

/** 7. Cold start: from spawning the command until the answer to `initialize` is read. */
export async function coldStart(rounds: number): Promise<Section> {
  const out = section();
  const dir = scratch();
  const times = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
  try {
    for (let i = 0; i < rounds; i++) {
      for (const v of VARIANTS) {
        const t0 = performance.now();
        const r = launch(v, join(dir, `cold-${i}.cassette.json`));
        await r.client.handshake();
        times[v].push(performance.now() - t0);
        await close(r);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const direct = summary(times.direct).median;
  const floor = summary(times['pipe floor']).median;
  for (const v of VARIANTS) {
    const s = summary(times[v]);
    out.rows.push({
      scenario: '7. stdio cold start (spawn → `initialize` answered)',
      variant: v,
      median: `${fmt(s.median)} ms`,
      tail: `${fmt(s.p99)} ms`,
      compared:
        v === 'direct'
          ? `${rounds} starts each`
          : `+${fmt(s.median - direct)} ms vs direct${PROXIES.includes(v) ? `, +${fmt(s.median - floor)} ms vs floor` : ''}`,
    });
  }
  const worst = Math.max(...PROXIES.map((v) => summary(times[v]).median - floor));
  out.targets.push({ goal: 'Cold start: under 100 ms more than the pipe floor', measured: `+${fmt(worst)} ms (median)`, met: worst < 100 });
  return out;
}

/** 1. Round trip: sequential `tools/call`, one in flight; latency per request. */
export async function roundTrips(count: number, blocks: number): Promise<Section> {
  const out = section();
  const dir = scratch();
  const lat = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
  const running = VARIANTS.map((v, i) => launch(v, join(dir, `rt-${i}.cassette.json`)));
  try {
    for (const r of running) await r.client.handshake();
    for (const r of running) for (let w = 0; w < 300; w++) await r.client.echo(w); // warm up
    const perBlock = Math.max(1, Math.round(count / blocks));
    for (let b = 0; b < blocks; b++) {
      for (const r of running) {
        for (let i = 0; i < perBlock; i++) {
          const t0 = performance.now();
          await r.client.echo(i);
          lat[r.variant].push((performance.now() - t0) * 1000);
        }
      }
    }
  } finally {
    await Promise.all(running.map(close));
    rmSync(dir, { recursive: true, force: true });
  }
  const direct = summary(lat.direct).median;
  const floorAdded = added(summary(lat['pipe floor']).median, direct);
  for (const v of VARIANTS) {
    const s = summary(lat[v]);
    const a = added(s.median, direct);
    out.rows.push({
      scenario: '1. stdio round trip (1 in flight)',
      variant: v,
      median: `${fmt(s.median)} µs`,
      tail: `${fmt(s.p99)} µs`,
      compared:
        v === 'direct'
          ? `${int(s.n)} calls each`
          : `+${fmt(a)} µs added${PROXIES.includes(v) ? ` = ${fmt(a / floorAdded, 2)}x the floor's` : ''}`,
    });
  }
  const on = added(summary(lat['mcp-cassette record']).median, direct) / floorAdded;
  out.targets.push({
    goal: "stdio: added median latency (validation + recording on) <= 1.3x the pipe floor's",
    measured: `${fmt(on, 2)}x`,
    met: on <= 1.3,
  });
  return out;
}

/** 2. Throughput: `window` requests in flight; answered requests per second, per block. */
export async function throughput(count: number, window: number, blocks: number): Promise<Section> {
  const out = section();
  const dir = scratch();
  const rates = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
  const running = VARIANTS.map((v, i) => launch(v, join(dir, `tp-${i}.cassette.json`)));
  try {
    for (const r of running) await r.client.handshake();
    for (const r of running) await pump(2000, window, (i) => r.client.echo(i)); // warm up
    const perBlock = Math.max(window, Math.round(count / blocks));
    for (let b = 0; b < blocks; b++) {
      for (const r of running) {
        const seconds = await pump(perBlock, window, (i) => r.client.echo(i));
        rates[r.variant].push(perBlock / seconds);
      }
    }
  } finally {
    await Promise.all(running.map(close));
    rmSync(dir, { recursive: true, force: true });
  }
  const direct = summary(rates.direct).median;
  for (const v of VARIANTS) {
    const s = summary(rates[v]);
    out.rows.push({
      scenario: `2. stdio throughput (${window} in flight)`,
      variant: v,
      median: `${int(s.median)} calls/s`,
      tail: `${int(s.p1)} calls/s`,
      compared:
        v === 'direct'
          ? `${blocks} blocks of ${int(Math.max(window, Math.round(count / blocks)))} calls`
          : `${fmt((100 * s.median) / direct, 0)}% of direct`,
    });
  }
  const on = summary(rates['mcp-cassette record']).median / direct;
  out.targets.push({
    goal: 'stdio: throughput (validation + recording on) >= 80% of direct',
    measured: `${fmt(100 * on, 0)}%`,
    met: on >= 0.8,
  });
  return out;
}

/**
 * 4. Large message over stdio: one `tools/call` answered with `mb` MB, each round in fresh
 * processes. Time from sending the request to the answer's last byte; the proxy process's peak
 * RSS while forwarding (VmHWM, read right after the answer arrived) and over its whole life
 * (maxrss at exit, which includes folding the journal into the cassette).
 */
export async function largeMessage(rounds: number, mb: number): Promise<Section> {
  const out = section();
  const dir = scratch();
  const times = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
  const forwarding = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
  const lifetime = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
  let answerBytes = 0;
  try {
    for (let i = 0; i < rounds; i++) {
      for (const v of VARIANTS) {
        const rssFile = join(dir, `rss-${i}-${v.replace(/\W+/g, '-')}`);
        const cassette = join(dir, `big-${i}-${v.replace(/\W+/g, '-')}.cassette.json`);
        const r = launch(v, cassette, { ...process.env, BENCH_RSS_FILE: rssFile }, ['--import', rssReport]);
        await r.client.handshake();
        const t0 = performance.now();
        answerBytes = (await r.client.request('tools/call', { name: 'big', arguments: { mb } })).bytes;
        times[v].push(performance.now() - t0);
        if (v !== 'direct') forwarding[v].push(memory(r.child.pid!)?.peakMb ?? NaN);
        await close(r);
        if (v !== 'direct') lifetime[v].push(Number(readFileSync(rssFile, 'utf8')));
        if (PROXIES.includes(v) && statSync(cassette).size < mb * 1024 * 1024)
          throw new Error(`the cassette of ${v} misses the large answer`);
        rmSync(cassette, { force: true });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const sizeMb = answerBytes / 1024 / 1024;
  const direct = summary(times.direct).median;
  for (const v of VARIANTS) {
    const s = summary(times[v]);
    const f = summary(forwarding[v]).median;
    const l = summary(lifetime[v]).median;
    out.rows.push({
      scenario: `4. stdio ${fmt(sizeMb, 0)} MB tool result`,
      variant: v,
      median: `${fmt(s.median, 0)} ms`,
      tail: `${fmt(s.p99, 0)} ms`,
      compared:
        v === 'direct'
          ? `${rounds} round${rounds === 1 ? '' : 's'}`
          : `+${fmt(s.median - direct, 0)} ms; proxy peak RSS ${fmt(f, 0)} MB forwarding (${fmt(f / sizeMb, 1)}x)${PROXIES.includes(v) ? `, ${fmt(l, 0)} MB incl. cassette write (${fmt(l / sizeMb, 1)}x)` : ''}`,
    });
  }
  const worstForwarding = Math.max(...PROXIES.map((v) => summary(forwarding[v]).median)) / sizeMb;
  const worstLifetime = Math.max(...PROXIES.map((v) => summary(lifetime[v]).median)) / sizeMb;
  out.targets.push({
    goal: `${fmt(sizeMb, 0)} MB message over stdio: proxy peak RSS <= 3x the message, while forwarding`,
    measured: PROXIES.map((v) => `${v}: ${fmt(summary(forwarding[v]).median / sizeMb, 1)}x`).join(', '),
    met: worstForwarding <= 3,
  });
  out.targets.push({
    goal: `${fmt(sizeMb, 0)} MB message over stdio: proxy peak RSS <= 3x the message, over the proxy's life (incl. the cassette write)`,
    measured: PROXIES.map((v) => `${v}: ${fmt(summary(lifetime[v]).median / sizeMb, 1)}x`).join(', '),
    met: worstLifetime <= 3,
  });
  return out;
}

/**
 * 5. Long session through `mcp-cassette record`: `messages` messages (half requests, half
 * answers, `window` in flight). RSS of the proxy process sampled as the session goes on, and the
 * time from the client closing stdin to the proxy's exit (the server ends at once; the rest is
 * folding the journal into the cassette), at several session sizes.
 */
export async function longSession(sizes: number[], window: number, samples: number, rounds = 1): Promise<Section> {
  const out = section();
  const dir = scratch();
  const largest = Math.max(...sizes);
  const variants: Variant[] = ['mcp-cassette record', 'record --no-validate'];
  const writes: Record<string, { size: number; ms: number }[]> = Object.fromEntries(variants.map((v) => [v, []]));
  const rssSeries: Record<string, { at: number; mb: number }[]> = {};
  const rates: Record<string, number> = {};
  try {
    for (let round = 0; round < rounds; round++)
      for (const size of [...sizes].sort((a, b) => a - b)) {
        for (const v of variants) {
          const cassette = join(dir, `long-${size}-${v.replace(/\W+/g, '-')}.cassette.json`);
          const r = launch(v, cassette);
          await r.client.handshake();
          const requests = Math.round(size / 2);
          const series: { at: number; mb: number }[] = [{ at: 0, mb: memory(r.child.pid!)?.rssMb ?? NaN }];
          const every = Math.max(1, Math.round(requests / samples));
          const seconds = await pump(
            requests,
            window,
            (i) => r.client.echo(i),
            (done) => {
              if (done % every === 0) series.push({ at: done * 2, mb: memory(r.child.pid!)?.rssMb ?? NaN });
            },
          );
          const t0 = performance.now();
          await close(r);
          writes[v]!.push({ size, ms: performance.now() - t0 });
          if (size === largest && round === 0) {
            rssSeries[v] = series;
            rates[v] = requests / seconds;
          }
          const bytes = statSync(cassette).size;
          if (bytes < size * 50) throw new Error(`the ${size}-message cassette of ${v} is only ${bytes} bytes`);
          rmSync(cassette, { force: true });
        }
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const v of variants) {
    const series = rssSeries[v]!;
    // Growth after warm-up: from the sample at 10% of the session to the highest one after it.
    const warm = series.find((s) => s.at >= largest * 0.1) ?? series[0]!;
    const peak = Math.max(...series.filter((s) => s.at >= warm.at).map((s) => s.mb));
    // The median of the rounds at each size.
    const w = [...new Set(writes[v]!.map((x) => x.size))]
      .sort((a, b) => a - b)
      .map((size) => ({ size, ms: summary(writes[v]!.filter((x) => x.size === size).map((x) => x.ms)).median }));
    const fit = linearFit(
      w.map((x) => x.size),
      w.map((x) => x.ms),
    );
    const perK = w.map((x) => `${x.size % 1000 === 0 ? int(x.size / 1000) : fmt(x.size / 1000, 1)}k: ${int(x.ms)} ms`).join(', ');
    // Linear: the cost of the last segment's messages is no more than 1.5x that of the first's.
    const slope = (a: { size: number; ms: number }, b: { size: number; ms: number }): number => (b.ms - a.ms) / (b.size - a.size);
    const bend = w.length >= 3 ? slope(w.at(-2)!, w.at(-1)!) / slope(w[0]!, w[1]!) : NaN;
    out.rows.push({
      scenario: `5. stdio long session, ${int(largest)} messages`,
      variant: v,
      median: `${fmt(peak - warm.mb)} MB RSS growth`,
      tail: '',
      compared: `RSS ${series
        .filter((_, i) => i % Math.max(1, Math.round(series.length / 6)) === 0 || i === series.length - 1)
        .map((s) => `${fmt(s.mb, 0)}`)
        .join(' → ')} MB over ${int(largest)} msgs at ${int(rates[v]!)} calls/s`,
    });
    out.rows.push({
      scenario: '5. cassette write (stdin EOF → proxy exit)',
      variant: v,
      median: `${fmt(fit.slope * 1000, 1)} ms per 1k msgs`,
      tail: '',
      compared: `${perK}${rounds > 1 ? ` (medians of ${rounds})` : ''}; least squares R² ${fmt(fit.r2, 3)}; last/first segment cost ${fmt(bend, 2)}x`,
    });
    out.targets.push({
      goal: `${int(largest)}-message session (${v}): RSS growth under 50 MB`,
      measured: `${fmt(peak - warm.mb)} MB`,
      met: peak - warm.mb < 50,
    });
    out.targets.push({
      goal: `Cassette write linear in the session size (${v})`,
      measured: `${fmt(fit.slope * 1000, 1)} ms per 1k messages, R² ${fmt(fit.r2, 3)}, last/first segment cost ${fmt(bend, 2)}x`,
      met: fit.r2 >= 0.97 && bend <= 1.5,
    });
  }
  return out;
}
