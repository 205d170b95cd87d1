/**
 * The fuzzing loop: cases from the generators (cases.ts), sent in order on one long-lived
 * connection per era, each judged as it completes (judge.ts). A new finding is shrunk on fresh
 * servers (shrink.ts) and written as a cassette (finding-cassette.ts) at once, so a run cut short
 * keeps what it found. The connection is dropped after a crash or a hang (a fresh server comes
 * with the next case). Bounded by `runs` (cases) and `seconds`, whichever comes first; with the
 * same seed and `runs`, the same cases go out in the same order.
 */
import type { Plan } from '../probes/plan.js';
import type { Observed } from './judge.js';
import { findingSession, writeFindingCassette } from './finding-cassette.js';
import { openConn, runCase, type Conn, type RunnerContext } from './runner.js';
import { shrink } from './shrink.js';
import type { Endpoint, HttpServerProcess } from './target.js';
import type { FuzzCase } from './types.js';

export interface FuzzOptions {
  endpoint: Endpoint;
  plan: Plan;
  seed: number;
  /** At most this many cases. */
  runs?: number;
  /** At most this long, in seconds (shrinking included). */
  seconds?: number;
  timeoutMs: number;
  /** Where the findings' cassettes go. */
  out: string;
  /** Runs per finding the shrinker may spend (default 40). */
  maxShrinkAttempts?: number;
  server?: HttpServerProcess;
  /** Called as each finding is written, and every so many cases, for progress output. */
  onFinding?: (f: Finding) => void;
}

export interface Finding {
  /** As the run that reproduced it saw it (or the first sighting, when none did). */
  observed: Observed;
  /** The case that drew it first. */
  case: FuzzCase;
  /** The case of the minimal session (the first one, shrunk). */
  minimal: FuzzCase;
  /** How many cases drew it. */
  count: number;
  /** 1-based index of the case that first drew it. */
  firstAt: number;
  /** The cassette that replays it; absent when no fresh server showed it again. */
  cassette?: string;
  reproducible: boolean;
  shrink: { attempts: number; ms: number; cases: number };
}

export interface FuzzRun {
  seed: number;
  cases: number;
  /** Client messages sent while fuzzing (shrinking not counted). */
  messages: number;
  durationMs: number;
  fuzzMs: number;
  shrinkMs: number;
  findings: Finding[];
  /** Connections the fuzzer had to open again after a crash or a hang. */
  restarts: number;
  stoppedBy: 'runs' | 'seconds' | 'cases-exhausted' | 'server-gone';
  /** Why the run could not start or went on no further. */
  error?: string;
}

export async function runFuzz(options: FuzzOptions, cases: Iterable<FuzzCase>): Promise<FuzzRun> {
  const started = performance.now();
  const deadline = options.seconds !== undefined ? started + options.seconds * 1000 : Infinity;
  const ctx: RunnerContext = {
    endpoint: options.endpoint,
    plan: options.plan,
    timeoutMs: options.timeoutMs,
    ...(options.server ? { server: options.server } : {}),
  };
  const run: FuzzRun = {
    seed: options.seed,
    cases: 0,
    messages: 0,
    durationMs: 0,
    fuzzMs: 0,
    shrinkMs: 0,
    findings: [],
    restarts: 0,
    stoppedBy: 'cases-exhausted',
  };
  const bySignature = new Map<string, Finding>();
  const conns = new CaseConnections(ctx, options);
  const canRestart = options.endpoint.transport === 'stdio' || options.server !== undefined;
  try {
    for (const c of cases) {
      if (options.runs !== undefined && run.cases >= options.runs) {
        run.stoppedBy = 'runs';
        break;
      }
      if (performance.now() >= deadline) {
        run.stoppedBy = 'seconds';
        break;
      }
      run.cases++;
      const { conn, isolated } = await conns.forCase(c, run);
      const t0 = performance.now();
      const { observed, trace } = await runCase(ctx, conn, c);
      run.fuzzMs += performance.now() - t0;
      run.messages += trace.results.length;
      if (isolated) await conn.wire.close();
      const broken = trace.results.some((r) => r.gone || r.timedOut);
      if (broken && !isolated) {
        await conns.drop(c.era);
        if (options.server) await options.server.stop();
      }
      for (const o of observed) {
        const known = bySignature.get(o.signature);
        if (known) {
          known.count++;
          continue;
        }
        const finding = await keep(options, ctx, conn.history, c, o, run.cases);
        // The shrinker restarted the HTTP server we started: the connections open before it
        // (their 2025 sessions) are gone with it.
        if (options.server) await conns.dropAll();
        run.shrinkMs += finding.shrink.ms;
        bySignature.set(o.signature, finding);
        run.findings.push(finding);
        options.onFinding?.(finding);
      }
      if (!canRestart && trace.results.some((r) => r.gone)) {
        run.stoppedBy = 'server-gone';
        run.error = `the server at ${'url' in options.endpoint ? options.endpoint.url : ''} stopped answering; give its start command after -- so the fuzzer can start it again`;
        break;
      }
      if (options.server && !options.server.alive) await options.server.start();
    }
  } catch (err) {
    if (!(err instanceof StopRun)) throw err;
    run.error = err.message;
    run.stoppedBy = 'server-gone';
  } finally {
    await conns.dropAll();
  }
  run.durationMs = Math.round(performance.now() - started);
  run.fuzzMs = Math.round(run.fuzzMs);
  return run;
}

/** The connection each case runs on: one shared per era, opened again (and the server started
 * again) once a crash or a hang took it; or one of the case's own. */
class CaseConnections {
  readonly #conns = new Map<'modern' | 'legacy', Conn>();

  constructor(
    private readonly ctx: RunnerContext,
    private readonly options: FuzzOptions,
  ) {}

  async drop(era: 'modern' | 'legacy'): Promise<void> {
    const c = this.#conns.get(era);
    this.#conns.delete(era);
    if (c) await c.wire.close();
  }

  async dropAll(): Promise<void> {
    for (const era of [...this.#conns.keys()]) await this.drop(era);
  }

  async forCase(c: FuzzCase, run: FuzzRun): Promise<{ conn: Conn; isolated: boolean }> {
    // A case before the handshake needs a connection without one; a case whose ids are the
    // mutation gets one of its own too, so that a late answer to one of its reused ids never
    // meets another case's request with the same id on a shared connection.
    const isolated = c.beforeHandshake === true || c.fixedIds === true;
    if (isolated) {
      const opened = await openConn(this.ctx, c.era, !c.beforeHandshake);
      if ('error' in opened) throw new StopRun(opened.error);
      return { conn: opened, isolated };
    }
    const open = this.#conns.get(c.era);
    if (open && open.wire.alive) return { conn: open, isolated };
    if (open) run.restarts++;
    if (open && this.options.server && !this.options.server.alive) await this.options.server.start();
    const opened = await openConn(this.ctx, c.era);
    if ('error' in opened) throw new StopRun(opened.error);
    this.#conns.set(c.era, opened);
    return { conn: opened, isolated };
  }
}

class StopRun extends Error {}

/** Shrinks a new finding and writes its cassette. */
async function keep(
  options: FuzzOptions,
  ctx: RunnerContext,
  history: readonly FuzzCase[],
  c: FuzzCase,
  o: Observed,
  index: number,
): Promise<Finding> {
  const canShrink = options.endpoint.transport === 'stdio' || options.server !== undefined || o.kind !== 'crash';
  const startedAt = new Date();
  const shrunk = canShrink
    ? await shrink(ctx, history, c, o.signature, options.maxShrinkAttempts ?? 40)
    : { cases: [c], reproducible: false, attempts: 0, ms: 0 };
  const minimal = shrunk.cases.at(-1) ?? c;
  const finding: Finding = {
    observed: 'observed' in shrunk && shrunk.observed ? shrunk.observed : o,
    case: c,
    minimal,
    count: 1,
    firstAt: index,
    reproducible: shrunk.reproducible,
    shrink: { attempts: shrunk.attempts, ms: shrunk.ms, cases: shrunk.cases.length },
  };
  if ('conn' in shrunk && shrunk.conn && shrunk.observed) {
    const session = findingSession(shrunk.conn.wire, options.endpoint, startedAt);
    finding.cassette = writeFindingCassette(options.out, shrunk.observed, minimal, session, {
      seed: options.seed,
      timeoutMs: options.timeoutMs,
    });
  }
  return finding;
}
