/**
 * `runCheck`: every cassette replayed against the build through the recording proxy, the replay's
 * own traffic validated with validate's rules, the probes when asked, the expected-failures file
 * applied, and one verdict. It throws a CassetteError only when it cannot start (bad options, no
 * cassette, an unreadable baseline); a server that fails mid-way is an error in the run (exit 2).
 */
import { mkdtempSync, rmSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { globSync } from 'tinyglobby';
import { loadCassette } from '../lib/cassette/store.js';
import { CassetteError } from '../lib/errors.js';
import { loadExpectedFailures, type ExpectedFailures } from '../lib/expected-failures.js';
import type { Violation } from '../lib/violation.js';
import { replayCassette, type ReplayOptions } from '../replay/index.js';
import { matchExpectedViolations } from '../validators/expected-violations.js';
import { probe } from '../validators/probes/probe-run.js';
import type { ProbeRun } from '../validators/probes/report.js';
import { validateCassettes } from '../validators/validate-run.js';
import { recordFromCassettes, recordFromClient, type FreshCassette } from './base-build.js';
import { cassetteFindings, fails } from './findings.js';
import { fuzzStep } from './fuzz-step.js';
import { startRecording, type Target } from './recording-target.js';
import { shardPositions, type ShardSpec } from './shard.js';
import { staleEntries } from './stale-entries.js';
import { countRun, emptyCounts } from './counts.js';
import type { CassetteCheck, CheckRun } from './types.js';
import { settleBeforeRead } from '../lib/cassette/settle-read.js';

export interface CheckOptions {
  /** Globs (or plain paths) of the cassettes to replay. */
  cassettes: readonly string[];
  /** The PR build. */
  target: Target;
  headers?: Record<string, string>;
  timeoutMs?: number;
  ignore?: readonly string[];
  /** mcp-cassette.config.json to read (replay's), or false for none. */
  config?: string | false;
  probe?: boolean;
  allowSideEffects?: boolean;
  failOn?: 'error' | 'warning';
  expectedFailures?: string;
  /** Base-vs-PR mode: the base build, and optionally the client script that drives it. */
  baseline?: Target;
  baselineLabel?: string;
  client?: string;
  /** Where fresh cassettes of the base build are kept (a temporary folder, removed, by default). */
  recordDir?: string;
  /** Fuzz the build this long after the replays (seconds), from the cassettes replayed. */
  fuzzSeconds?: number;
  /** Where the fuzz findings' cassettes go (default `fuzz-findings`). */
  fuzzOut?: string;
  fuzzSeed?: number;
  /** Where the client script's output and progress go. */
  err?: NodeJS.WritableStream;
  /** `--shard K/N`: replay only this part of the cassettes (check/shard.ts). */
  shard?: ShardSpec;
}

export function expandCassettes(patterns: readonly string[]): string[] {
  const found = new Set<string>();
  for (const p of patterns) {
    const hits = existsSync(p) ? [resolve(p)] : globSync(p, { absolute: true, onlyFiles: true, expandDirectories: false });
    if (hits.length === 0) {
      throw new CassetteError(
        'MCPC_CASSETTE_NOT_FOUND',
        `--cassettes ${JSON.stringify(p)} matches no file (relative to ${process.cwd()}); quote the glob so the shell leaves it to check, e.g. --cassettes 'cassettes/**/*.cassette.json'`,
      );
    }
    for (const h of hits.sort()) found.add(resolve(h));
  }
  return [...found];
}

const label = (t: Target): string => ('url' in t ? t.url : t.command.join(' '));

export async function runCheck(options: CheckOptions): Promise<CheckRun> {
  const started = Date.now();
  const failOn = options.failOn ?? 'error';
  // A client script records the base build itself: the committed cassettes are not used then.
  const listed = options.cassettes.length && !options.client ? expandCassettes(options.cassettes) : [];
  if (!listed.length && !options.client) {
    throw new CassetteError(
      'MCPC_USAGE',
      'check needs cassettes to replay (--cassettes <glob>), or in base-vs-PR mode a client script (--client <command>)',
    );
  }
  // A part of a sharded run may be given none (more parts than cassettes): it passes, empty.
  const positions = options.shard ? shardPositions(listed, options.shard) : listed.map((_, i) => i);
  const committed = positions.map((i) => listed[i]!);
  await settleBeforeRead(committed);
  const baseline: ExpectedFailures | undefined = options.expectedFailures ? loadExpectedFailures(options.expectedFailures) : undefined;
  const work = mkdtempSync(join(tmpdir(), 'mcp-cassette-check-'));
  const replayOptions: Omit<ReplayOptions, 'command' | 'url'> = {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.ignore ? { ignore: options.ignore } : {}),
    ...(options.config !== undefined ? { config: options.config } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
  const run: CheckRun = {
    target: label(options.target),
    ...(options.baseline ? { baselineBuild: options.baselineLabel ?? label(options.baseline) } : {}),
    ...(baseline ? { expectedFailures: baseline.file } : {}),
    failOn,
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
    cassettes: [],
    findings: [],
    errors: [],
    verdict: 'pass',
    counts: emptyCounts(),
  };
  const perCassette: number[] = [];
  const ctx: CheckContext = { options, work, replayOptions, baseline, run };
  try {
    const toReplay = options.baseline
      ? await baseCassettes(ctx, options.baseline, committed, positions)
      : committed.map((path) => ({ path }));
    const allViolations: Violation[] = [];
    for (const [n, c] of toReplay.entries()) {
      const before = run.findings.length;
      allViolations.push(...(await checkCassette(ctx, c, n)));
      perCassette.push(run.findings.length - before);
    }
    if (options.fuzzSeconds !== undefined && toReplay.length && run.errors.length === 0) {
      const step = await fuzzStep(
        toReplay.map((c) => c.path),
        {
          seconds: options.fuzzSeconds,
          out: resolve(options.fuzzOut ?? 'fuzz-findings'),
          ...(options.fuzzSeed !== undefined ? { seed: options.fuzzSeed } : {}),
          target: options.target,
          ...(options.headers ? { headers: options.headers } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          allowSideEffects: Boolean(options.allowSideEffects),
          ...(options.err ? { err: options.err } : {}),
        },
      );
      run.fuzz = step.fuzz;
      run.findings.push(...step.findings);
    }
    const stale = baseline && run.errors.length === 0 ? staleEntries(run, baseline, allViolations) : { candidates: [], seen: [] };
    if (options.shard) {
      run.shard = { ...options.shard, of: listed.length, positions, findings: perCassette, stale: stale.candidates, seen: stale.seen };
    } else run.findings.push(...stale.candidates.map((c) => c.finding));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  run.durationMs = Date.now() - started;
  run.counts = countRun(run);
  run.verdict = run.errors.length ? 'error' : run.findings.some((f) => fails(f, failOn)) ? 'fail' : 'pass';
  return run;
}

/** What every cassette of one check run is checked with, and the run its results go into. */
interface CheckContext {
  options: CheckOptions;
  /** The run's temporary folder (the live cassettes, the base build's by default). */
  work: string;
  replayOptions: Omit<ReplayOptions, 'command' | 'url'>;
  baseline: ExpectedFailures | undefined;
  run: CheckRun;
}

/** Base-vs-PR mode: fresh cassettes of the base build, recorded by the client script or by
 * replaying the committed ones; a base build that fails is an error of the run, nothing replayed. */
async function baseCassettes(ctx: CheckContext, base: Target, committed: string[], positions: number[]): Promise<FreshCassette[]> {
  const { options } = ctx;
  const dir = options.recordDir ? resolve(options.recordDir) : join(ctx.work, 'base');
  mkdirSync(dir, { recursive: true });
  try {
    return options.client
      ? [await recordFromClient(options.client, base, dir, options.err ?? process.stderr)]
      : await recordFromCassettes(committed, base, dir, ctx.replayOptions, positions);
  } catch (err) {
    if ((err as CassetteError).code !== 'MCPC_BASE_BUILD_FAILED') throw err;
    ctx.run.errors.push((err as Error).message);
    return [];
  }
}

/** One cassette replayed against the build through the recording proxy, the build's traffic
 * validated, the probes run when asked: its check and findings go into the run. Returns the
 * violations of the build's traffic (for the stale entries of the expected-failures file). */
async function checkCassette(ctx: CheckContext, c: FreshCassette, n: number): Promise<Violation[]> {
  const { options, run, baseline } = ctx;
  const livePath = join(ctx.work, `live-${n + 1}.cassette.json`);
  const rec = await startRecording(options.target, livePath);
  let replay;
  try {
    replay = await replayCassette(c.path, { ...ctx.replayOptions, ...rec.target });
  } finally {
    await rec.close();
  }
  if (replay.outcome === 'error') run.errors.push(`${c.path}: ${replay.error?.message ?? 'the replay could not run to the end'}`);
  const live = existsSync(livePath) ? loadCassette(livePath).sessions : [];
  // The client side of the replay is the cassette's (or the replay's own ids and pacing): only
  // what the build sent is judged.
  const liveRun = live.length ? validateCassettes([livePath]) : { cassettes: [], violations: [] };
  liveRun.violations = liveRun.violations.filter((v) => v.direction === 'server-to-client');
  const recordedRun = validateCassettes([c.path]);
  const matched = matchExpectedViolations(liveRun.violations, baseline?.validate ?? []);
  const probeRun = options.probe ? await probeCassette(options, c.path, options.probe && baseline ? baseline : undefined) : undefined;
  run.cassettes.push({
    path: c.path,
    ...(c.source ? { source: c.source } : {}),
    replay,
    interactions: replay.sessions.flatMap((s) =>
      s.interactions.map((i) => ({
        session: s.index,
        seq: i.seq,
        method: i.method,
        ...(i.name !== undefined ? { name: i.name } : {}),
        outcome: i.outcome,
        ...(i.durationMs !== undefined ? { durationMs: i.durationMs } : {}),
      })),
    ),
    ...(probeRun ? { probe: probeRun } : {}),
  } satisfies CassetteCheck);
  run.findings.push(
    ...cassetteFindings({
      file: c.path,
      recorded: loadCassette(c.path).sessions,
      replay,
      live,
      liveViolations: liveRun.violations,
      recordedViolations: recordedRun.violations,
      expectedViolations: matched.expected,
      replayExpectations: baseline?.replay ?? [],
      ...(probeRun ? { probe: probeRun } : {}),
    }),
  );
  return liveRun.violations;
}

/** `--probe`: the probes run against the build, with the cassette's recorded traffic as context. */
function probeCassette(options: CheckOptions, cassette: string, probeIds: ExpectedFailures | undefined): Promise<ProbeRun> {
  return probe({
    cassette,
    ...('url' in options.target ? { url: options.target.url, command: [] } : { command: options.target.command }),
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    allowSideEffects: Boolean(options.allowSideEffects),
    format: 'json',
    ...(probeIds ? { expectedFailures: probeIds.file } : {}),
    header: Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    probe: [],
  });
}
