/**
 * One timed fuzz run for the fuzz bench (fuzz-bench.ts): the engine of `mcp-cassette fuzz` run in
 * this process, composed as validators/fuzz/fuzz-run.ts composes it (plan, generated cases,
 * runFuzz), so that process.cpuUsage is the fuzzer's CPU alone (the server is another process,
 * counted apart once reaped). The case stream is wrapped to mark the moment each case is pulled:
 * the gaps are the time per case, and from the case that drew a finding to the finding's report
 * is what shrinking it (and writing its cassette) cost.
 */
import { loadCassette } from '../../lib/cassette/store.js';
import { generateCases } from '../../validators/fuzz/cases.js';
import { runFuzz, type Finding, type FuzzRun } from '../../validators/fuzz/engine.js';
import { HttpServerProcess, type Endpoint } from '../../validators/fuzz/target.js';
import type { FuzzCase } from '../../validators/fuzz/types.js';
import { derivePlan, type Plan } from '../../validators/probes/plan.js';
import { fuzzTargetCommand, recordSeedCassette, type SeedEra } from '../helpers/fuzz-target.js';
import { timed, type Era, type TimedRun } from './fuzz-floor.js';
import { cpuClock } from './proc.js';
import type { Scope } from './scope.js';

export type Transport = 'stdio' | 'http';

/** The seed plans, by transport and era: the seed session recorded through `record`. */
export type Seeds = Record<Transport, Partial<Record<Era, Plan>>>;

const SEED_ERA: Record<Era, SeedEra> = { legacy: '2025-11-25', modern: '2026-07-28' };

export async function recordSeeds(scope: Scope, dir: string, transports: Transport[]): Promise<Seeds> {
  const seeds: Seeds = { stdio: {}, http: {} };
  for (const transport of transports)
    for (const era of ['legacy', 'modern'] as const) {
      const path = await recordSeedCassette(scope.t, { era: SEED_ERA[era], transport, dir });
      seeds[transport][era] = derivePlan(loadCassette(path), true);
    }
  return seeds;
}

/** What shrinking one finding cost: from the case that drew it to its report. */
export interface ShrinkCost {
  finding: Finding;
  wallMs: number;
  /** The fuzzer's CPU (the shrink attempts' clients and judging, and the cassette written). */
  selfCpuMs: number;
  /** The fresh servers of the attempts (and, for a crash, the server that crashed). */
  serverCpuMs: number;
}

export interface FuzzRound {
  timed: TimedRun;
  run: FuzzRun;
  shrinks: ShrinkCost[];
  /** Cases sent on a connection of their own (a call before the handshake): over stdio, each
   * starts a server process. */
  ownConnection: number;
}

export interface RoundOptions {
  transport: Transport;
  plan: Plan;
  fixed: boolean;
  /** HTTP: the port the server listens on (fixed, so a restarted server is found again). */
  port?: number;
  cases: number;
  seed: number;
  timeoutMs: number;
  out: string;
}

/** The target as the CLI would be given it: `-- <command>`, or `--url <endpoint> -- <command>`. */
function endpointOf(o: RoundOptions): { endpoint: Endpoint; server?: HttpServerProcess } {
  if (o.transport === 'stdio') return { endpoint: { transport: 'stdio', command: fuzzTargetCommand({ fixed: o.fixed }) } };
  const command = [...fuzzTargetCommand({ fixed: o.fixed, http: true }), '--port', String(o.port)];
  const url = `http://127.0.0.1:${o.port}/mcp`;
  return { endpoint: { transport: 'streamable-http', url, command, headers: {} }, server: new HttpServerProcess(command, url) };
}

export function fuzzRound(o: RoundOptions): Promise<FuzzRound> {
  const { endpoint, server } = endpointOf(o);
  const shrinks: ShrinkCost[] = [];
  let run: FuzzRun | undefined;
  let ownConnection = 0;
  let pulled = 0;
  let mark = { wall: 0, ...cpuClock() };
  const stamp = (): typeof mark => ({ wall: performance.now(), ...cpuClock() });
  return timed(async (each) => {
    const generated = generateCases(o.plan, o.seed, { allowSideEffects: false });
    function* marked(): Generator<FuzzCase> {
      for (const c of generated.cases) {
        const now = stamp();
        if (mark.wall > 0) each.push(now.wall - mark.wall);
        mark = now;
        // runFuzz pulls one case past its budget before it stops: that one is never sent.
        if (++pulled <= o.cases && c.beforeHandshake) ownConnection++;
        yield c;
      }
    }
    if (server) await server.start();
    try {
      run = await runFuzz(
        {
          endpoint,
          plan: o.plan,
          seed: o.seed,
          runs: o.cases,
          timeoutMs: o.timeoutMs,
          out: o.out,
          ...(server ? { server } : {}),
          onFinding: (finding) => {
            const now = stamp();
            shrinks.push({
              finding,
              wallMs: now.wall - mark.wall,
              selfCpuMs: now.selfMs - mark.selfMs,
              serverCpuMs: now.childrenMs - mark.childrenMs,
            });
            // A second finding of the same case is shrunk after the first.
            mark = now;
          },
        },
        marked(),
      );
    } finally {
      await server?.stop();
    }
    if (run.error) throw new Error(`the fuzz run stopped: ${run.error}`);
    return run.messages;
  }).then((t) => ({ timed: t, run: run!, shrinks, ownConnection }));
}

/** The round's times with the shrinking of its findings taken out: a finding on the fixed build
 * is a false one, and its shrink runs are no part of the fuzzer's throughput. */
export function withoutShrinking(f: FuzzRound): FuzzRound {
  const sum = (k: 'wallMs' | 'selfCpuMs' | 'serverCpuMs'): number => f.shrinks.reduce((n, s) => n + s[k], 0);
  return {
    ...f,
    timed: {
      ...f.timed,
      wallMs: f.timed.wallMs - sum('wallMs'),
      selfCpuMs: f.timed.selfCpuMs - sum('selfCpuMs'),
      serverCpuMs: f.timed.serverCpuMs - sum('serverCpuMs'),
    },
  };
}
