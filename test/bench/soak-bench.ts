/**
 * Scenario 10 (issue 19): the production-capture soak. `record --cassette-dir` with rotation
 * (--rotate-size) and retention (--keep-bytes) stands in front of the official v1 SDK server over
 * Streamable HTTP (test/bench/soak-server.ts, one 2025 session, every answer an SSE stream) while
 * autocannon sends `tools/call echo` at a steady rate for the whole run. Every few seconds the
 * proxy's resident memory (/proc/<pid>/status) and the directory's disk use (every file in it:
 * cassettes, journals, temporary files) are sampled. A request fails when autocannon reports an
 * error, a timeout or a non-2xx status, or when its body holds no JSON-RPC result. When the load
 * ends the proxy is stopped (SIGINT) and `validate --format json` judges every cassette left.
 *
 *   BENCH_SOAK_MINUTES   minutes of load per size (30)
 *   BENCH_SOAK_SIZES     text sizes of the echo in KiB, comma-separated (1,10: the base and 10x),
 *                        run one after the other
 *   BENCH_SOAK_RATE      requests per second, all connections together (50)
 *   BENCH_SOAK_CONNS     connections (4)
 *   BENCH_SOAK_SAMPLE_S  seconds between samples (5)
 *   BENCH_SOAK_CSV       a folder: each size's samples go to soak-<KiB>k.csv there
 *   BENCH_SOAK_RECORD_ARGS  more `record` options, space-separated (`--no-validate`: the same
 *                        soak without live validation, to tell its memory from the recorder's)
 *
 * Rotation and retention grow with the message: --rotate-size <KiB> MiB and --keep-bytes 8x that.
 */
import { execFile } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { benchDir, cli, ended, firstLine, memory, node, start, stop } from './proc.js';
import { openSession } from './load-bench.js';
import { section, type Section } from './report.js';
import { fmt, int } from './stats.js';
import { PER_REQUEST_KEPT } from '../../validators/session-bounds.js';

const soakServer = join(benchDir, 'soak-server.js');
const MiB = 1024 * 1024;

interface Sample {
  seconds: number;
  rssMb: number;
  diskBytes: number;
  files: number;
  load1: number;
}

export interface SoakResult {
  kib: number;
  minutes: number;
  rotateSize: number;
  keepBytes: number;
  rate: number;
  requests: number;
  failures: number;
  failureKinds: string;
  rssWarm: number;
  rssEnd: number;
  rssMaxAfterWarm: number;
  flat: Flatness;
  maxDisk: number;
  cassettes: number;
  validCassettes: number;
  errors: number;
  counters: Record<string, unknown> | undefined;
  load: { min: number; mean: number; max: number };
  command: string;
}

/** RSS after warm-up, read from the samples (see rssFlatness). */
export interface Flatness {
  /** When warm-up ends, in seconds from the start of the load. */
  warmEnd: number;
  /** Median RSS (MB) of the first and of the last window after warm-up. */
  first: number;
  last: number;
  /** Least-squares slope of RSS after warm-up, MB per hour. */
  slopePerHour: number;
}

/**
 * Whether RSS is flat after warm-up. Warm-up ends at 2 minutes, or once the live validator's
 * bounded memories of answered requests are full (PER_REQUEST_KEPT requests at the run's rate;
 * they fill for the first 20,000 requests by design), whichever is later, and at half the run at
 * most. The first and last windows are a fifth of what follows (a minute at least); their
 * medians are compared, so one sample taken before a garbage collection does not decide.
 */
export function rssFlatness(samples: readonly { seconds: number; rssMb: number }[], rate: number): Flatness {
  const during = samples.filter((s) => Number.isFinite(s.rssMb));
  const end = during.at(-1)?.seconds ?? 0;
  const warmEnd = Math.min(Math.max(120, PER_REQUEST_KEPT / rate), end / 2);
  const after = during.filter((s) => s.seconds >= warmEnd);
  const span = Math.max(60, (end - warmEnd) / 5);
  const median = (xs: number[]): number => {
    const v = [...xs].sort((a, b) => a - b);
    return v.length === 0 ? NaN : v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
  };
  const n = after.length;
  const sx = after.reduce((a, s) => a + s.seconds, 0);
  const sy = after.reduce((a, s) => a + s.rssMb, 0);
  const sxx = after.reduce((a, s) => a + s.seconds * s.seconds, 0);
  const sxy = after.reduce((a, s) => a + s.seconds * s.rssMb, 0);
  return {
    warmEnd,
    first: median(after.filter((s) => s.seconds < warmEnd + span).map((s) => s.rssMb)),
    last: median(after.filter((s) => s.seconds > end - span).map((s) => s.rssMb)),
    slopePerHour: n > 1 ? ((n * sxy - sx * sy) / (n * sxx - sx * sx)) * 3600 : NaN,
  };
}

/** Bytes of every file in `dir` (hidden journals and temporary files included). */
function diskUse(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const name of readdirSync(dir)) {
    try {
      bytes += statSync(join(dir, name)).size;
      files++;
    } catch {
      // deleted between readdir and stat (a pruned cassette, a folded journal)
    }
  }
  return { bytes, files };
}

const run = promisify(execFile);

/** `validate --format json` on the directory: cassettes read, and those with an error-level verdict. */
async function validateDir(dir: string): Promise<{ cassettes: number; withErrors: number; errors: number }> {
  const files = readdirSync(dir).filter((n) => n.endsWith('.cassette.json') && !n.startsWith('.'));
  if (files.length === 0) return { cassettes: 0, withErrors: 0, errors: 0 };
  const { stdout } = await run(node, [cli, 'validate', dir, '--format', 'json'], { maxBuffer: 1024 * MiB });
  const report = JSON.parse(stdout) as {
    summary: { cassettes: number; errors: number };
    violations: { severity: string; cassette?: string }[];
  };
  const bad = new Set(report.violations.filter((v) => v.severity === 'error').map((v) => v.cassette));
  if (report.summary.cassettes !== files.length)
    throw new Error(`validate read ${report.summary.cassettes} cassettes of the ${files.length} in ${dir}`);
  return { cassettes: report.summary.cassettes, withErrors: bad.size, errors: report.summary.errors };
}

export async function soakRun(kib: number, minutes: number, rate: number, connections: number, sampleSeconds: number): Promise<SoakResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-soak-'));
  const cassetteDir = join(dir, 'cassettes');
  const logFile = join(dir, 'record.log');
  const rotateSize = kib * MiB;
  const keepBytes = 8 * rotateSize;
  const up = start([soakServer], { stdio: ['ignore', 'pipe', 'inherit'] });
  const log = openSync(logFile, 'w');
  const args = [
    'record',
    '--log-level',
    'info',
    '--upstream',
    '<url>',
    '--cassette-dir',
    '<dir>',
    '--rotate-size',
    `${kib}MiB`,
    '--keep-bytes',
    `${8 * kib}MiB`,
    ...(process.env.BENCH_SOAK_RECORD_ARGS ?? '').split(' ').filter(Boolean),
  ];
  let proxy: ReturnType<typeof start> | undefined;
  const samples: Sample[] = [];
  try {
    const upUrl = await firstLine(up);
    const argv = args.map((a) => (a === '<url>' ? upUrl : a === '<dir>' ? cassetteDir : a));
    proxy = start([cli, ...argv], { stdio: ['ignore', 'pipe', log] });
    const url = await firstLine(proxy);
    const sid = await openSession(url);
    const pid = proxy.pid!;
    const t0 = Date.now();
    const take = (): void => {
      const m = memory(pid);
      const d = diskUse(cassetteDir);
      samples.push({ seconds: (Date.now() - t0) / 1000, rssMb: m?.rssMb ?? NaN, diskBytes: d.bytes, files: d.files, load1: loadavg()[0]! });
    };
    take();
    const timer = setInterval(take, sampleSeconds * 1000);
    const text = 'x'.repeat(kib * 1024 - 16);
    let id = 1;
    let badBodies = 0;
    const result = await autocannon({
      url,
      connections,
      overallRate: rate,
      duration: minutes * 60,
      timeout: 30,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-11-25',
      },
      requests: [
        {
          setupRequest: (req) => {
            const n = id++;
            return {
              ...req,
              body: `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"echo","arguments":{"text":"${n.toString(36).padStart(16, '0')}${text}"}}}`,
            };
          },
          onResponse: (status, body) => {
            if (status === 200 && !(body.includes('"result":{') && body.includes(text))) badBodies++;
          },
        },
      ],
    });
    clearInterval(timer);
    take();
    const requests = result['2xx'] + result.non2xx;
    const failures = result.errors + result.timeouts + result.non2xx + badBodies;
    await stop(proxy, 'SIGINT', 600_000);
    const after = diskUse(cassetteDir);
    samples.push({ seconds: (Date.now() - t0) / 1000, rssMb: NaN, diskBytes: after.bytes, files: after.files, load1: loadavg()[0]! });
    if (process.env.BENCH_SOAK_CSV) {
      const csv = [
        'seconds,rss_mb,disk_bytes,files,load1',
        ...samples.map((s) => `${fmt(s.seconds, 1)},${fmt(s.rssMb, 1)},${s.diskBytes},${s.files},${fmt(s.load1, 2)}`),
      ];
      writeFileSync(join(process.env.BENCH_SOAK_CSV, `soak-${kib}k.csv`), csv.join('\n') + '\n');
    }
    // The samples are kept (BENCH_SOAK_CSV) even when validate cannot run.
    const v = await validateDir(cassetteDir).catch((err: Error) => {
      process.stderr.write(`soak: validate failed: ${err.message}\n`);
      return { cassettes: NaN, withErrors: NaN, errors: NaN };
    });
    const logText = readFileSync(logFile, 'utf8');
    const stopped = logText
      .split('\n')
      .filter((l) => l.includes('"recording stopped"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .at(-1);
    const during = samples.filter((s) => Number.isFinite(s.rssMb));
    const warmEnd = Math.min(120, (minutes * 60) / 10);
    const afterWarm = during.filter((s) => s.seconds >= warmEnd);
    const loads = samples.map((s) => s.load1);
    return {
      kib,
      minutes,
      rotateSize,
      keepBytes,
      rate: requests / result.duration,
      requests,
      failures,
      failureKinds: `errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}, bodies without the result ${badBodies}`,
      rssWarm: afterWarm[0]?.rssMb ?? NaN,
      rssEnd: during.at(-1)?.rssMb ?? NaN,
      rssMaxAfterWarm: Math.max(...afterWarm.map((s) => s.rssMb)),
      flat: rssFlatness(samples, requests / result.duration),
      maxDisk: Math.max(...samples.map((s) => s.diskBytes)),
      cassettes: v.cassettes,
      validCassettes: v.cassettes - v.withErrors,
      errors: v.errors,
      counters: stopped,
      load: { min: Math.min(...loads), mean: loads.reduce((a, b) => a + b, 0) / loads.length, max: Math.max(...loads) },
      command: `mcp-cassette ${args.join(' ')}`,
    };
  } finally {
    if (proxy) await stop(proxy, 'SIGKILL');
    await stop(up);
    await ended(up);
    closeSync(log);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Scenario 10 as a section of `npm run bench`. */
export async function soakBench(
  minutes: number,
  sizes: number[],
  rate: number,
  connections: number,
  sampleSeconds: number,
): Promise<Section> {
  const s = section();
  for (const kib of sizes) {
    process.stderr.write(` [${kib} KiB, ${minutes} min]`);
    const r = await soakRun(kib, minutes, rate, connections, sampleSeconds);
    const c = r.counters ?? {};
    const label = `10. soak ${r.minutes} min, echo of ${r.kib} KiB at ${int(r.rate)} req/s, ${connections} conns`;
    s.rows.push({
      scenario: label,
      variant: `--rotate-size ${r.kib}MiB --keep-bytes ${8 * r.kib}MiB`,
      median: `RSS ${fmt(r.rssWarm, 0)} MB after warm-up, ${fmt(r.rssEnd, 0)} MB at the end (max ${fmt(r.rssMaxAfterWarm, 0)})`,
      tail: `max disk ${fmt(r.maxDisk / MiB, 1)} MiB (keep ${fmt(r.keepBytes / MiB, 0)} MiB + rotate ${fmt(r.rotateSize / MiB, 0)} MiB)`,
      compared: `${int(r.requests)} requests, ${r.failures} failed (${r.failureKinds}); ${r.validCassettes}/${r.cassettes} cassettes left valid (${r.errors} errors); rotated ${String(c.cassettesRotated ?? '?')}, pruned ${String(c.cassettesPruned ?? '?')}, paused ${String(c.pauses ?? '?')}; load average ${fmt(r.load.min, 2)}-${fmt(r.load.max, 2)} (mean ${fmt(r.load.mean, 2)})`,
    });
    s.targets.push({ goal: `${label}: no request failed`, measured: `${r.failures} of ${int(r.requests)}`, met: r.failures === 0 });
    s.targets.push({
      goal: `${label}: disk within --keep-bytes plus the journal being written`,
      measured: `${fmt(r.maxDisk / MiB, 1)} MiB`,
      met: r.maxDisk <= r.keepBytes + 2 * r.rotateSize,
    });
    s.targets.push({
      goal: `${label}: RSS flat after warm-up (median of the last window within 10% of the first; see rssFlatness)`,
      measured: `${fmt(r.flat.first, 0)} -> ${fmt(r.flat.last, 0)} MB after ${fmt(r.flat.warmEnd / 60, 1)} min, ${fmt(r.flat.slopePerHour, 1)} MB/h`,
      met: r.flat.last <= r.flat.first * 1.1,
    });
    s.targets.push({
      goal: `${label}: every closed cassette valid`,
      measured: `${r.validCassettes}/${r.cassettes}`,
      met: r.cassettes > 0 && r.validCassettes === r.cassettes,
    });
    s.notes.push(`Soak of ${r.kib} KiB: \`${r.command}\` (the URL and folder filled in by the bench).`);
  }
  return s;
}
