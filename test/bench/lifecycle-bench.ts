/**
 * 11. Lifecycle (issue 28): what a host sees when it starts its servers together, and when it
 * closes them the v1 SDK way (stdin ends; SIGTERM would follow 2 s later). 1, 4 and 8 sessions
 * start at once, each a bare server, the same server behind the least a Node.js proxy does (the
 * node pipe floor), or through `mcp-cassette record`, on a quiet
 * machine and with two CPU-bound processes beside them. Per session: the time from the spawn to
 * the answer to `server/discover` (written at once, as @ai-sdk/mcp and the v2 SDK's probe do), the
 * process's CPU (every thread, from /proc) and RSS when that answer arrives, and once stdin is
 * closed, how long the process takes to exit, and (through `record`) how long after its server's
 * own exit. The variants alternate within each round. After the record rounds, every cassette is
 * read back: sessions saved out of sessions run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCassette } from '../../lib/cassette/store.js';
import { listJournals } from '../../lib/cassette/settle.js';
import { LineClient } from './line-client.js';
import { benchServer, cli, ended, node, pipeFloor } from './proc.js';
import { section, type Section } from './report.js';
import { fmt, summary } from './stats.js';

/** `node pipe floor`: the least any Node.js stdio proxy does (pipe-floor.ts: spawn and pipe, no
 * journal, no validation): what a Node process between host and server costs at all. */
type Variant = 'bare server' | 'node pipe floor' | 'record';
const VARIANTS: Variant[] = ['bare server', 'node pipe floor', 'record'];
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'lifecycle-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Sample {
  discoverMs: number;
  cpuMs: number;
  rssMb: number;
  exitMs: number;
  /** record: the proxy's exit after its server's (ms). */
  afterServerMs?: number;
}

/** CPU time of every thread of `pid` so far, in ms (Linux /proc; NaN elsewhere). */
function cpuMs(pid: number): number {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1e6;
  } catch {
    return NaN;
  }
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

function exitedAt(child: ChildProcess): Promise<number> {
  return new Promise((r) =>
    child.exitCode !== null || child.signalCode !== null
      ? r(performance.timeOrigin + performance.now())
      : child.once('exit', () => r(performance.timeOrigin + performance.now())),
  );
}

async function session(variant: Variant, dir: string, i: number): Promise<Sample> {
  const exitLog = join(dir, `exit-${i}.log`);
  const server = [benchServer, 'stdio'];
  const argv =
    variant === 'bare server'
      ? server
      : variant === 'node pipe floor'
        ? [pipeFloor, node, ...server]
        : [cli, 'record', '--cassette', join(dir, `s${i}.cassette.json`), '--', node, ...server];
  const t0 = performance.now();
  const child = spawn(node, argv, { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, BENCH_EXIT_LOG: exitLog } });
  const exit = exitedAt(child);
  const client = new LineClient(child.stdout!, child.stdin!);
  await client.request('server/discover', { _meta: META });
  const discoverMs = performance.now() - t0;
  const sample = { discoverMs, cpuMs: cpuMs(child.pid!), rssMb: rssMb(child.pid!) };
  await client.request('tools/list', { _meta: META });
  for (let n = 0; n < 3; n++) await client.request('tools/call', { name: 'echo', arguments: { n }, _meta: META });
  return { ...sample, exitMs: 0, close: () => closeAndWait(child, exit, exitLog) } as Sample & { close: () => Promise<Partial<Sample>> };
}

async function closeAndWait(child: ChildProcess, exit: Promise<number>, exitLog: string): Promise<Partial<Sample>> {
  const closedAt = performance.timeOrigin + performance.now();
  child.stdin!.end();
  const at = await exit;
  await ended(child);
  const serverAt = existsSync(exitLog) ? Number(readFileSync(exitLog, 'utf8').trim().split('\n')[0]) : NaN;
  return { exitMs: at - closedAt, afterServerMs: at - serverAt };
}

/** Two CPU-bound processes, as "the machine busy" (another build, a test run). */
function burners(): ChildProcess[] {
  return [0, 1].map(() => spawn(node, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
}

async function round(variant: Variant, n: number, dir: string): Promise<Sample[]> {
  const started = await Promise.all(Array.from({ length: n }, (_, i) => session(variant, dir, i)));
  // The host closes them all at once.
  const closed = await Promise.all(started.map((s) => (s as unknown as { close: () => Promise<Partial<Sample>> }).close()));
  return started.map((s, i) => ({ ...s, ...closed[i]! }));
}

/** Waits until the finishers wrote every cassette of a round; returns sessions saved. */
async function saved(dir: string, n: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const left = Array.from({ length: n }, (_, i) => join(dir, `s${i}.cassette.json`)).filter((c) => listJournals(c).length > 0);
    if (left.length === 0 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  let count = 0;
  for (let i = 0; i < n; i++) {
    try {
      count += loadCassette(join(dir, `s${i}.cassette.json`)).sessions.length;
    } catch {
      // not written
    }
  }
  return count;
}

/** `--version` and `--help`: wall time and peak RSS (GNU time, when the machine has it). */
async function quickCommand(args: string[], runs: number): Promise<{ ms: number[]; mb: number[] }> {
  const gnuTime = existsSync('/usr/bin/time');
  const ms: number[] = [];
  const mb: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const child = gnuTime
      ? spawn('/usr/bin/time', ['-f', '%M', node, cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(node, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    await ended(child);
    ms.push(performance.now() - t0);
    const kb = Number(err.trim().split('\n').at(-1));
    if (gnuTime && Number.isFinite(kb)) mb.push(kb / 1024);
  }
  return { ms, mb };
}

export async function lifecycleBench(rounds: number): Promise<Section> {
  const out = section();
  const results = new Map<string, Sample[]>();
  const savedCount = new Map<string, { saved: number; run: number }>();
  for (const busy of [false, true]) {
    const load = busy ? burners() : [];
    try {
      for (let r = 0; r < rounds; r++) {
        for (const n of [1, 4, 8]) {
          for (const v of VARIANTS) {
            const dir = mkdtempSync(join(tmpdir(), 'mcpc-lifecycle-'));
            try {
              const key = `${n}|${busy ? 'busy' : 'quiet'}|${v}`;
              results.set(key, [...(results.get(key) ?? []), ...(await round(v, n, dir))]);
              if (v === 'record') {
                const c = savedCount.get(key) ?? { saved: 0, run: 0 };
                savedCount.set(key, { saved: c.saved + (await saved(dir, n)), run: c.run + n });
              }
            } finally {
              rmSync(dir, { recursive: true, force: true });
            }
          }
        }
      }
    } finally {
      for (const p of load) p.kill('SIGKILL');
    }
  }
  const med = (xs: number[]): number => summary(xs).median;
  for (const [key, samples] of results) {
    const [n, load, variant] = key.split('|');
    const d = summary(samples.map((s) => s.discoverMs));
    const e = summary(samples.map((s) => s.exitMs));
    const a = variant === 'record' ? summary(samples.map((s) => s.afterServerMs!)) : undefined;
    const c = savedCount.get(key);
    out.rows.push({
      scenario: `11. lifecycle, ${n} at once, ${load}`,
      variant: variant!,
      median: `discover ${fmt(d.median, 0)} ms; exit ${fmt(e.median, 0)} ms`,
      tail: `discover max ${fmt(d.max, 0)} ms; exit max ${fmt(e.max, 0)} ms`,
      compared: [
        `CPU at discover ${fmt(med(samples.map((s) => s.cpuMs)), 0)} ms, RSS ${fmt(med(samples.map((s) => s.rssMb)), 0)} MB`,
        ...(a ? [`exit after the server's own: median ${fmt(a.median, 0)} ms, max ${fmt(a.max, 0)} ms`] : []),
        ...(c ? [`${c.saved} of ${c.run} sessions in their cassettes`] : []),
      ].join('; '),
    });
  }
  const get = (n: number, load: string, v: Variant): Sample[] => results.get(`${n}|${load}|${v}`) ?? [];
  const bare1 = med(get(1, 'quiet', 'bare server').map((s) => s.discoverMs));
  const rec1 = med(get(1, 'quiet', 'record').map((s) => s.discoverMs));
  out.targets.push({
    goal: 'Lifecycle: 1 session, discover answered within the bare server + 50 ms',
    measured: `${fmt(rec1, 0)} ms vs ${fmt(bare1, 0)} ms (+${fmt(rec1 - bare1, 0)} ms)`,
    met: rec1 <= bare1 + 50,
  });
  const floor1 = med(get(1, 'quiet', 'node pipe floor').map((s) => s.discoverMs));
  out.notes.push(
    `Lifecycle, 1 session: the node pipe floor answers discover at ${fmt(floor1, 0)} ms (+${fmt(floor1 - bare1, 0)} ms over the bare server): what a Node.js process in between costs before it does anything.`,
  );
  const bare8 = med(get(8, 'quiet', 'bare server').map((s) => s.discoverMs));
  const rec8 = med(get(8, 'quiet', 'record').map((s) => s.discoverMs));
  const floor8 = med(get(8, 'quiet', 'node pipe floor').map((s) => s.discoverMs));
  out.targets.push({
    goal: 'Lifecycle: 8 at once, discover (median) within 1.3x the bare servers',
    measured: `${fmt(rec8, 0)} ms vs ${fmt(bare8, 0)} ms (${fmt(rec8 / bare8, 2)}x; the node pipe floor: ${fmt(floor8, 0)} ms, ${fmt(floor8 / bare8, 2)}x)`,
    met: rec8 <= 1.3 * bare8,
  });
  const after1 = get(1, 'quiet', 'record').map((s) => s.afterServerMs!);
  const after8 = get(8, 'quiet', 'record').map((s) => s.afterServerMs!);
  out.targets.push({
    goal: "Lifecycle: the proxy exits within 100 ms of its server's exit (median), 250 ms for the slowest of 8 at once",
    measured: `median ${fmt(med(after1), 0)} ms (1 session), ${fmt(med(after8), 0)} ms (8 at once); slowest of 8: ${fmt(Math.max(...after8), 0)} ms`,
    met: med(after1) <= 100 && med(after8) <= 100 && Math.max(...after8) <= 250,
  });
  const lost = [...savedCount.values()].reduce((x, c) => x + c.run - c.saved, 0);
  out.targets.push({
    goal: 'Lifecycle: every session in its cassette',
    measured: `${[...savedCount.values()].reduce((x, c) => x + c.saved, 0)} of ${[...savedCount.values()].reduce((x, c) => x + c.run, 0)}`,
    met: lost === 0,
  });
  for (const args of [['--version'], ['--help']]) {
    const q = await quickCommand(args, Math.max(5, rounds * 2));
    const ms = summary(q.ms).median;
    const mb = q.mb.length ? summary(q.mb).median : NaN;
    out.rows.push({
      scenario: `11. lifecycle, mcp-cassette ${args[0]}`,
      variant: 'quiet',
      median: `${fmt(ms, 0)} ms`,
      tail: `max ${fmt(summary(q.ms).max, 0)} ms`,
      compared: Number.isFinite(mb) ? `peak RSS ${fmt(mb, 0)} MB` : 'peak RSS not measured (no GNU time)',
    });
    out.targets.push({
      goal: `Lifecycle: mcp-cassette ${args[0]} under 150 ms and 60 MB`,
      measured: `${fmt(ms, 0)} ms, ${Number.isFinite(mb) ? `${fmt(mb, 0)} MB` : 'RSS not measured'}`,
      met: Number.isFinite(mb) ? ms < 150 && mb < 60 : undefined,
    });
  }
  out.notes.push(
    'Lifecycle: CPU is every thread of the measured process (for record, the proxy alone, not its server) from its start to the discover answer; exit is from the end of stdin to the process exit; "busy" runs two CPU-bound processes beside the sessions.',
  );
  return out;
}
