#!/usr/bin/env node
/**
 * `npm run bench`: every scenario (issue 7's, and those added since) in one run, printed as one README-ready markdown
 * table (medians with p99, ratios against the direct connection and the reference floors, the
 * variants alternated within the run), then the targets with met/missed, then notes. Progress
 * goes to stderr, so `npm run bench > bench.md` keeps only the report.
 *
 * Settings (environment):
 *   BENCH_QUICK=1            small rounds everywhere (a smoke run of the whole suite, 3-4 minutes)
 *   BENCH_ONLY=1,3,8         only these scenarios (numbers as in the table)
 *   BENCH_COLD_ROUNDS        7: starts per variant (30)
 *   BENCH_RT_COUNT           1: stdio sequential calls per variant (6000)
 *   BENCH_TP_COUNT           2: stdio calls per variant (40000), BENCH_TP_WINDOW in flight (64)
 *   BENCH_HTTP_COUNT         3: HTTP sequential calls per variant and format (3000; talkback a tenth)
 *   BENCH_HTTP_TP_COUNT      3: HTTP calls per variant and format (8000), BENCH_HTTP_WINDOW in flight (16)
 *   BENCH_PEERS              3/4: talkback,mcp-proxy,supergateway (default all), or none
 *   BENCH_LARGE_MB           4: size of the large tool result in MB (50); BENCH_LARGE_ROUNDS (3)
 *   BENCH_SLOW_MB            4: size of the SSE stream a slow client holds back, in MB (100); rounds: BENCH_LARGE_ROUNDS
 *   BENCH_LONG_MESSAGES      5: messages in the long session (200000); cassette write is also timed at 1/8, 1/4, 1/2;
 *                            BENCH_LONG_ROUNDS (2) rounds of all sizes, the median per size
 *   BENCH_VALIDATOR_ROUNDS   6: passes over the example cassettes (400)
 *   BENCH_REPLAY_INTERACTIONS 8: interactions in the replay cassette (10000); BENCH_REPLAY_ROUNDS (2)
 *   BENCH_SERVE_MAX_SECONDS  8: stop a serve run after this long and rate the calls done (20)
 *   BENCH_LOAD_SECONDS       9: seconds per HTTP load run (5); more in test/bench/load-bench.ts
 *   BENCH_SOAK_MINUTES       10: minutes of load per message size (30; quick 1); more in test/bench/soak-bench.ts
 *                            (scenario 10 runs only when BENCH_ONLY names it: an hour by default)
 *   BENCH_CPU_PROF=<dir>     write CPU profiles of every mcp-cassette process there
 *                            (summarise with `node dist/test/bench/profile-summary.js <dir>`)
 *   BENCH_LIFECYCLE_ROUNDS   11: rounds of 1, 4 and 8 sessions at once, quiet and busy (5)
 *   BENCH_JSON=<file>        also write rows and targets as JSON
 *
 * Benches run by name, alone, print a report of their own instead (`npm run bench -- <name>`):
 *   validation-recall        the validator's recall and false positives by transport and revision
 *                            (test/bench/validation-recall.ts; 10 minutes on a busy 2-core machine)
 *   fuzz                     `mcp-cassette fuzz`: cases per second and CPU per message against the bare
 *                            server's floor, stdio and HTTP, both eras; the time and runs to shrink each
 *                            seeded defect (test/bench/fuzz-bench.ts, its settings there; BENCH_QUICK=1 too)
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { httpLargeMessage, httpRoundTrips, httpThroughput, slowClientStream, sseStreaming } from './http-bench.js';
import { lifecycleBench } from './lifecycle-bench.js';
import { loadBench } from './load-bench.js';
import { soakBench } from './soak-bench.js';
import { replayBench } from './replay-bench.js';
import { markdownTable, section, type Section } from './report.js';
import { fmt, int } from './stats.js';
import { coldStart, largeMessage, longSession, roundTrips, throughput } from './stdio-bench.js';
import { validatorThroughput } from './validator-bench.js';
import { RULES } from '../../validators/rules/index.js';

/** The benches run by name (`npm run bench -- <name>`), each printing its own report. */
const NAMED: Record<string, () => Promise<void>> = {
  'validation-recall': async () => (await import('./validation-recall.js')).validationRecall(),
  fuzz: async () => (await import('./fuzz-bench.js')).fuzzBench(),
};
const named = process.argv[2];
if (named !== undefined) {
  const bench = NAMED[named];
  if (!bench) {
    process.stderr.write(`bench: no bench named ${named}; the named ones: ${Object.keys(NAMED).join(', ')}\n`);
    process.exit(2);
  }
  await bench();
  process.exit();
}

const quick = process.env.BENCH_QUICK === '1';
const num = (name: string, full: number, small: number): number => {
  const v = process.env[name];
  return v !== undefined && v !== '' ? Number(v) : quick ? small : full;
};
const only = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const wanted = (n: number): boolean => (only.length === 0 && n !== 10) || only.includes(String(n));

const settings = {
  coldRounds: num('BENCH_COLD_ROUNDS', 30, 4),
  rtCount: num('BENCH_RT_COUNT', 6000, 600),
  tpCount: num('BENCH_TP_COUNT', 40000, 4000),
  tpWindow: num('BENCH_TP_WINDOW', 64, 64),
  httpCount: num('BENCH_HTTP_COUNT', 3000, 300),
  httpTpCount: num('BENCH_HTTP_TP_COUNT', 8000, 800),
  httpWindow: num('BENCH_HTTP_WINDOW', 16, 16),
  largeMb: num('BENCH_LARGE_MB', 50, 50),
  largeRounds: num('BENCH_LARGE_ROUNDS', 3, 1),
  slowMb: num('BENCH_SLOW_MB', 100, 100),
  longMessages: num('BENCH_LONG_MESSAGES', 200_000, 20_000),
  longRounds: num('BENCH_LONG_ROUNDS', 2, 2),
  validatorRounds: num('BENCH_VALIDATOR_ROUNDS', 400, 40),
  replayInteractions: num('BENCH_REPLAY_INTERACTIONS', 10_000, 1000),
  replayRounds: num('BENCH_REPLAY_ROUNDS', 2, 1),
  loadSeconds: num('BENCH_LOAD_SECONDS', 5, 2),
  loadStdio: num('BENCH_LOAD_STDIO', 40_000, 4000),
  soakMinutes: num('BENCH_SOAK_MINUTES', 30, 1),
  soakRate: num('BENCH_SOAK_RATE', 50, 50),
  soakConns: num('BENCH_SOAK_CONNS', 4, 4),
  soakSampleSeconds: num('BENCH_SOAK_SAMPLE_S', 5, 5),
  lifecycleRounds: num('BENCH_LIFECYCLE_ROUNDS', 5, 1),
};
process.env.BENCH_SERVE_MAX_SECONDS ??= quick ? '10' : '20';

const started = Date.now();
const loadBefore = loadavg();
const sections: Section[] = [];
async function run(n: number, name: string, fn: () => Promise<Section> | Section): Promise<void> {
  if (!wanted(n)) return;
  const t0 = Date.now();
  process.stderr.write(`bench: ${name} ...`);
  try {
    sections.push(await fn());
    process.stderr.write(` ${fmt((Date.now() - t0) / 1000, 1)} s\n`);
  } catch (err) {
    process.stderr.write(` FAILED: ${(err as Error).stack ?? String(err)}\n`);
    const s = section();
    s.rows.push({
      scenario: name,
      variant: '-',
      median: 'failed',
      tail: '',
      compared: (err as Error).message.split('\n')[0]!.slice(0, 200),
    });
    s.targets.push({ goal: name, measured: 'scenario failed', met: false });
    sections.push(s);
    process.exitCode = 1;
  }
}

await run(1, '1. stdio round trip', () => roundTrips(settings.rtCount, 20));
await run(2, '2. stdio throughput', () => throughput(settings.tpCount, settings.tpWindow, 10));
await run(3, '3. HTTP round trip, JSON', () => httpRoundTrips('json', settings.httpCount, 10));
await run(3, '3. HTTP round trip, SSE', () => httpRoundTrips('sse', settings.httpCount, 10));
await run(3, '3. HTTP throughput, JSON', () => httpThroughput('json', settings.httpTpCount, settings.httpWindow, 8));
await run(3, '3. HTTP throughput, SSE', () => httpThroughput('sse', settings.httpTpCount, settings.httpWindow, 8));
await run(4, '4. large message, stdio', () => largeMessage(settings.largeRounds, settings.largeMb));
await run(4, '4. large message, HTTP JSON', () => httpLargeMessage('json', settings.largeRounds, settings.largeMb));
await run(4, '4. large message, HTTP SSE', () => httpLargeMessage('sse', settings.largeRounds, settings.largeMb));
await run(4, '4. SSE streaming', () => sseStreaming(quick ? 3 : 10, 200));
await run(4, '4. slow client on a long SSE stream', () => slowClientStream(settings.largeRounds, settings.slowMb));
await run(5, '5. long session', () => {
  const n = settings.longMessages;
  return longSession(
    [n / 8, n / 4, n / 2, n].map((x) => Math.round(x)),
    64,
    20,
    settings.longRounds,
  );
});
await run(6, '6. validator throughput', () => {
  const v = validatorThroughput(settings.validatorRounds);
  const s = section();
  s.rows.push({
    scenario: `6. validator throughput (${RULES.length} rules, recorded traffic)`,
    variant: 'one core',
    median: `${int(v.perSecond)} msg/s`,
    tail: '',
    compared: `${int(v.messages)} messages in ${fmt(v.seconds, 2)} s`,
  });
  // The same rounds once V8 has optimised the rules: what a long-running proxy's worker sees.
  const w = validatorThroughput(settings.validatorRounds, 2000);
  s.rows.push({
    scenario: '6. validator throughput, sustained (after 2,000 warm-up rounds)',
    variant: 'one core',
    median: `${int(w.perSecond)} msg/s`,
    tail: '',
    compared: `${int(w.messages)} messages in ${fmt(w.seconds, 2)} s`,
  });
  s.targets.push({
    goal: 'Validator: >= 50,000 typical messages per second on one core (first pass, fresh process)',
    measured: `${int(v.perSecond)} msg/s (sustained ${int(w.perSecond)} msg/s)`,
    met: v.perSecond >= 50_000,
  });
  return s;
});
await run(7, '7. cold start', () => coldStart(settings.coldRounds));
await run(8, '8. replay and serve', () => replayBench(settings.replayInteractions, settings.replayRounds));
await run(9, '9. live validation at load', () => loadBench(settings.loadSeconds, settings.loadStdio));
await run(11, '11. lifecycle', () => lifecycleBench(settings.lifecycleRounds));
await run(10, '10. production-capture soak', () =>
  soakBench(
    settings.soakMinutes,
    (process.env.BENCH_SOAK_SIZES ?? '1,10').split(',').map(Number),
    settings.soakRate,
    settings.soakConns,
    settings.soakSampleSeconds,
  ),
);

const rows = sections.flatMap((s) => s.rows);
const targets = sections.flatMap((s) => s.targets);
const notes = sections.flatMap((s) => s.notes);
const cpu = cpus();
const minutes = (Date.now() - started) / 60_000;
const out: string[] = [];
out.push(
  `Command: \`${quick ? 'BENCH_QUICK=1 ' : ''}${only.length ? `BENCH_ONLY=${only.join(',')} ` : ''}npm run bench\` (${fmt(minutes, 1)} min), ${new Date(started).toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
);
out.push(
  `Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'cpu'}, ${fmt(totalmem() / 2 ** 30, 0)} GiB, Linux ${release()}, Node ${process.version}; load average ${loadBefore.map((l) => fmt(l, 2)).join(' ')} before, ${loadavg()
    .map((l) => fmt(l, 2))
    .join(' ')} after.`,
);
out.push(
  `Settings: ${Object.entries(settings)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')}.`,
);
out.push('');
out.push(
  markdownTable(
    ['scenario', 'variant', 'median', 'p99 (rates: p1)', 'compared'],
    rows.map((r) => [r.scenario, r.variant, r.median, r.tail, r.compared]),
  ),
);
out.push('');
out.push(
  markdownTable(
    ['target', 'measured', 'met'],
    targets.map((t) => [t.goal, t.measured, t.met === undefined ? 'not measured' : t.met ? 'yes' : '**no**']),
  ),
);
if (notes.length > 0) {
  out.push('');
  for (const n of notes) out.push(`- ${n}`);
}
process.stdout.write(out.join('\n') + '\n');
if (process.env.BENCH_JSON)
  writeFileSync(
    process.env.BENCH_JSON,
    JSON.stringify({ started: new Date(started).toISOString(), settings, rows, targets, notes }, null, 2) + '\n',
  );
