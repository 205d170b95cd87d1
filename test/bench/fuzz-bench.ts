/**
 * `npm run bench -- fuzz`: the speed of `mcp-cassette fuzz` (issue 34, docs/fuzz.md "Speed").
 *
 * Throughput: the fuzzer against the `--fixed` build of test/servers/fuzz-target.ts (no defect
 * to find, so no shrinking and no hang in the figures; a false finding, should one come, is listed
 * in the notes and its shrinking taken out), a few thousand cases per era, over stdio and
 * Streamable HTTP; and the floor beside it, round by round: a bare client (fuzz-floor.ts) sending
 * as many recorded `tools/call` requests as the fuzzer sent messages, to the same build. The
 * difference is the fuzzer's cost per request: generating cases, keeping every frame, the
 * validator, judging.
 * Shrinking: the unfixed build, the budget docs/fuzz.md states (400 cases of seed 1, --timeout
 * 1000); for each seeded defect the runs the shrinker spent (the JSON report's `shrink`), and
 * the time and CPU from the case that drew it to its cassette.
 *
 * How it measures: the engine runs in this process (fuzz-rounds.ts composes it as the command
 * does), so process.cpuUsage is the fuzzer's own CPU, all threads; the servers are children of
 * this process, and their CPU is read from /proc/self/stat (cutime + cstime, 10 ms ticks) once
 * they have exited (proc.ts cpuClock). Wall times run from the server's start to its exit. Rates
 * and CPU are the median of the rounds with the lowest and highest in brackets; per-case and
 * per-request times are pooled over the rounds (median, p99). The seed sessions are recorded
 * first, through the real `record` CLI by the v2 SDK client (test/helpers/fuzz-target.ts).
 * Markdown on stdout, progress on stderr.
 *
 * Settings (environment; BENCH_QUICK=1 makes them small):
 *   FUZZ_BENCH_CASES          cases per throughput round and era (3000; quick 300)
 *   FUZZ_BENCH_ROUNDS         throughput rounds (5; quick 2)
 *   FUZZ_BENCH_SHRINK_ROUNDS  shrink runs per transport and era (3; quick 1)
 *   FUZZ_BENCH_HTTP=0         stdio only
 */
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { freePort, fuzzTargetCommand } from '../helpers/fuzz-target.js';
import { tempDir } from '../helpers/tmp.js';
import { httpFloor, stdioFloor, type Era, type TimedRun } from './fuzz-floor.js';
import { fuzzRound, recordSeeds, withoutShrinking, type FuzzRound, type Seeds, type Transport } from './fuzz-rounds.js';
import { shrinkTable } from './fuzz-shrink-table.js';
import { markdownTable } from './report.js';
import { Scope } from './scope.js';
import { fmt, int, summary } from './stats.js';

const quick = process.env.BENCH_QUICK === '1';
const num = (name: string, full: number, small: number): number => {
  const v = process.env[name];
  return v !== undefined && v !== '' ? Number(v) : quick ? small : full;
};
const settings = {
  cases: num('FUZZ_BENCH_CASES', 3000, 300),
  rounds: num('FUZZ_BENCH_ROUNDS', 5, 2),
  shrinkRounds: num('FUZZ_BENCH_SHRINK_ROUNDS', 3, 1),
  shrinkCases: 400,
  shrinkTimeoutMs: 1000,
  seed: 1,
};
const TRANSPORTS: Transport[] = process.env.FUZZ_BENCH_HTTP === '0' ? ['stdio'] : ['stdio', 'http'];
const ERAS: Era[] = ['legacy', 'modern'];
const ERA_LABEL: Record<Era, string> = { legacy: '2025-11-25', modern: '2026-07-28' };
const TRANSPORT_LABEL: Record<Transport, string> = { stdio: 'stdio', http: 'Streamable HTTP' };

const progress = (s: string): boolean => process.stderr.write(s);

interface Pair {
  fuzz: FuzzRound[];
  floor: TimedRun[];
}

/** The floor of one round: the same server build and era, as many requests as the fuzzer sent messages. */
async function floorRun(transport: Transport, plan: Seeds[Transport][Era], era: Era, n: number): Promise<TimedRun> {
  if (transport === 'stdio') return stdioFloor(fuzzTargetCommand({ fixed: true }), plan!, era, n);
  const port = await freePort();
  const command = [...fuzzTargetCommand({ fixed: true, http: true }), '--port', String(port)];
  return httpFloor(command, `http://127.0.0.1:${port}/mcp`, plan!, era, n);
}

async function throughput(seeds: Seeds, out: string, notes: string[]): Promise<Map<string, Pair>> {
  const pairs = new Map<string, Pair>();
  for (let r = 0; r < settings.rounds; r++)
    for (const transport of TRANSPORTS)
      for (const era of ERAS) {
        const plan = seeds[transport][era]!;
        const key = `${transport} ${era}`;
        const pair = pairs.get(key) ?? { fuzz: [], floor: [] };
        pairs.set(key, pair);
        progress(`fuzz bench: round ${r + 1}/${settings.rounds}, ${key} ...`);
        const fuzz = async (): Promise<FuzzRound> => {
          const port = transport === 'http' ? await freePort() : undefined;
          const f = await fuzzRound({
            transport,
            plan,
            fixed: true,
            cases: settings.cases,
            seed: settings.seed,
            timeoutMs: 5000,
            out,
            ...(port ? { port } : {}),
          });
          for (const x of f.shrinks)
            notes.push(
              `Round ${r + 1}, ${TRANSPORT_LABEL[transport]} ${ERA_LABEL[era]}: a false finding on the fixed build, ${x.finding.observed.rule ?? x.finding.observed.kind} on ${x.finding.observed.tool ?? x.finding.observed.method} at case ${x.finding.firstAt} (${x.finding.observed.message}; ${x.finding.reproducible ? 'reproduced' : 'not reproduced on a fresh server'}, ${x.finding.shrink.attempts} shrink runs, ${int(x.wallMs)} ms, taken out of the round's figures).`,
            );
          return withoutShrinking(f);
        };
        // Alternate which goes first, so drift in the machine's load falls on both.
        if (r % 2 === 0) {
          pair.fuzz.push(await fuzz());
          pair.floor.push(await floorRun(transport, plan, era, pair.fuzz.at(-1)!.timed.requests));
        } else {
          const n = pair.fuzz.at(-1)?.timed.requests ?? settings.cases;
          pair.floor.push(await floorRun(transport, plan, era, n));
          pair.fuzz.push(await fuzz());
        }
        const f = pair.fuzz.at(-1)!;
        progress(
          ` ${int(f.run.cases / (f.timed.wallMs / 1000))} cases/s, floor ${int(pair.floor.at(-1)!.requests / (pair.floor.at(-1)!.wallMs / 1000))} req/s\n`,
        );
      }
  return pairs;
}

/** Median of the rounds, with the lowest and highest: `12.3 (11.9–13.0)`. */
function spread(values: number[], digits = 0): string {
  const s = summary(values);
  const f = (x: number): string => (digits === 0 ? int(x) : fmt(x, digits));
  return values.length > 1 ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : f(s.median);
}

const perReqUs = (ms: number, n: number): number => (ms * 1000) / n;

function throughputTable(pairs: Map<string, Pair>): string {
  const rows: string[][] = [];
  for (const [key, { fuzz, floor }] of pairs) {
    const [transport, era] = key.split(' ') as [Transport, Era];
    const label = `${TRANSPORT_LABEL[transport]}, ${ERA_LABEL[era]}`;
    const fz = fuzz.map((f) => f.timed);
    const each = (runs: TimedRun[]): string => {
      const s = summary(runs.flatMap((t) => t.eachMs));
      return `${fmt(s.median, 2)} / ${fmt(s.p99, 2)}`;
    };
    const messages = fz[0]!.requests;
    rows.push([
      label,
      `fuzz (${int(fuzz[0]!.run.cases)} cases, ${int(messages)} messages; ${int(fuzz[0]!.ownConnection)} cases on a connection of their own)`,
      `${spread(fuzz.map((f) => f.run.cases / (f.timed.wallMs / 1000)))} cases/s`,
      `${spread(fz.map((t) => t.requests / (t.wallMs / 1000)))} msg/s`,
      `${each(fz)} per case`,
      spread(fz.map((t) => perReqUs(t.selfCpuMs, t.requests))),
      spread(fz.map((t) => perReqUs(t.serverCpuMs, t.requests))),
    ]);
    rows.push([
      label,
      `bare client (as many tools/call)`,
      '',
      `${spread(floor.map((t) => t.requests / (t.wallMs / 1000)))} req/s`,
      `${each(floor)} per request`,
      spread(floor.map((t) => perReqUs(t.selfCpuMs, t.requests))),
      spread(floor.map((t) => perReqUs(t.serverCpuMs, t.requests))),
    ]);
    const over = (f: (t: TimedRun) => number): string => spread(fz.map((t, i) => f(t) - f(floor[i]!)));
    rows.push([
      label,
      '**fuzzer over the floor**, per message',
      '',
      `+${over((t) => perReqUs(t.wallMs, t.requests))} µs wall`,
      '',
      `+${over((t) => perReqUs(t.selfCpuMs, t.requests))}`,
      `+${over((t) => perReqUs(t.serverCpuMs, t.requests))}`,
    ]);
  }
  return markdownTable(
    ['transport, era', 'client', 'cases/s', 'messages/s', 'wall ms, median / p99', 'client CPU µs/msg', 'server CPU µs/msg'],
    rows,
  );
}

async function shrinking(seeds: Seeds, dir: string): Promise<Map<string, FuzzRound[]>> {
  const runs = new Map<string, FuzzRound[]>();
  for (let r = 0; r < settings.shrinkRounds; r++)
    for (const transport of TRANSPORTS)
      for (const era of ERAS) {
        const key = `${transport} ${era}`;
        progress(`fuzz bench: shrink run ${r + 1}/${settings.shrinkRounds}, ${key} ...`);
        const port = transport === 'http' ? await freePort() : undefined;
        const f = await fuzzRound({
          transport,
          plan: seeds[transport][era]!,
          fixed: false,
          cases: settings.shrinkCases,
          seed: settings.seed,
          timeoutMs: settings.shrinkTimeoutMs,
          out: join(dir, `findings-${transport}-${era}-${r}`),
          ...(port ? { port } : {}),
        });
        runs.set(key, [...(runs.get(key) ?? []), f]);
        progress(` ${f.run.findings.length} findings, ${fmt(f.run.durationMs / 1000, 1)} s\n`);
      }
  return runs;
}

export async function fuzzBench(): Promise<void> {
  const scope = new Scope();
  const started = Date.now();
  const loadBefore = loadavg();
  const parts: string[] = [];
  const notes: string[] = [];
  try {
    const dir = tempDir(scope.t, 'mcp-cassette-fuzz-bench-');
    progress('fuzz bench: recording the seed sessions ...');
    const seeds = await recordSeeds(scope, dir, TRANSPORTS);
    progress(' done\n');
    parts.push(
      `### Throughput (the \`--fixed\` build, seed ${settings.seed})`,
      throughputTable(await throughput(seeds, join(dir, 'fixed-findings'), notes)),
    );
    parts.push(
      `### Shrinking (the unfixed build, ${settings.shrinkCases} cases of seed ${settings.seed}, --timeout ${settings.shrinkTimeoutMs})`,
      ...shrinkTable(await shrinking(seeds, dir), (key) => {
        const [transport, era] = key.split(' ') as [Transport, Era];
        return `${TRANSPORT_LABEL[transport]}, ${ERA_LABEL[era]}`;
      }),
    );
    if (notes.length) parts.push(notes.map((n) => `- ${n}`).join('\n'));
  } finally {
    await scope.close();
  }
  const cpu = cpus();
  const minutes = (Date.now() - started) / 60_000;
  const load = (l: number[]): string => l.map((x) => fmt(x, 2)).join(' ');
  parts.unshift(
    `Command: \`${quick ? 'BENCH_QUICK=1 ' : ''}npm run bench -- fuzz\` (${fmt(minutes, 1)} min), ${new Date(started).toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
    `Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'cpu'}, ${fmt(totalmem() / 2 ** 30, 0)} GiB, Linux ${release()}, Node ${process.version}; load average ${load(loadBefore)} before, ${load(loadavg())} after.`,
    `Settings: ${Object.entries(settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}, transports ${TRANSPORTS.join(', ')}.`,
  );
  await new Promise<void>((r) => process.stdout.write(parts.join('\n\n') + '\n', () => r()));
}
