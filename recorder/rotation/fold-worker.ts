/**
 * Folds one closed journal of `record --cassette-dir` into its cassette, or recovers the journals
 * that dead recorders left in the directory, in a worker thread: a fold is CPU work that must not
 * hold up the proxy, which goes on forwarding meanwhile. A fold judges what live validation left
 * undone (judge-at-write, by the module the composition root names) and then applies `--sample`,
 * as the write of a single cassette does; the counts go back to the proxy for its summary and
 * metrics.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { settleDirectory } from '../../lib/cassette/directory.js';
import type { Logger } from '../../lib/log.js';
import type { Severity } from '../../lib/violation.js';
import { sampleCounts, sampleSessions, type SampleCounts, type SamplingSettings } from '../capture/sampling.js';
import { finishJournal } from '../finish-session.js';

/** Judge-at-write for a fold: the module exporting `judgeAtWrite`, and what it judges. */
export interface FoldJudge {
  module: string;
  scope: 'all' | 'cross-session';
  failOn?: Severity;
}

export type FoldJob =
  | { kind: 'fold'; journal: string; cassette: string; trigger?: string; sampling?: SamplingSettings; judge?: FoldJudge }
  | { kind: 'recover'; dir: string };

/** A line the worker wants logged by the proxy's logger. */
export interface FoldLog {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

export type FoldResult =
  | {
      ok: true;
      sessions: number;
      messages: number;
      /** A cassette file was written (not when --sample left every session out). */
      written: boolean;
      sampling?: SampleCounts;
      judged?: { judged: number; violations: number; failed: boolean };
      /** A recover job: each cassette it wrote sessions into, and how many sessions and
       * messages (retention may delete them later; the log says what they held). */
      recovered?: { cassette: string; sessions: number; messages: number }[];
      logs: FoldLog[];
    }
  | { ok: false; error: string };

type JudgeAtWrite = (
  sessions: RecordedSession[],
  scope: FoldJudge['scope'],
  options: { logger: Logger; failOn?: Severity },
) => { judged: number; violations: number; failed: boolean };

/** A logger that keeps the lines for the proxy (judge-at-write logs its summary). */
function collectingLogger(logs: FoldLog[]): Logger {
  const at =
    (level: FoldLog['level']) =>
    (fields: Record<string, unknown>, message: string): void => {
      logs.push({ level, fields: JSON.parse(JSON.stringify(fields)) as Record<string, unknown>, message });
    };
  return { info: at('info'), warn: at('warn'), error: at('error') } as unknown as Logger;
}

async function run(job: FoldJob): Promise<FoldResult> {
  const logs: FoldLog[] = [];
  if (job.kind === 'fold') {
    let sampling: SampleCounts | undefined;
    let judged: { judged: number; violations: number; failed: boolean } | undefined;
    const judge = job.judge;
    const judgeAtWrite = judge ? ((await import(judge.module)) as { judgeAtWrite: JudgeAtWrite }).judgeAtWrite : undefined;
    let folded = 0;
    const sessions = await finishJournal(job.cassette, job.journal, {
      ...(judge && judgeAtWrite
        ? {
            judge: async (all: RecordedSession[]) => {
              judged = judgeAtWrite(all, judge.scope, {
                logger: collectingLogger(logs),
                ...(judge.failOn ? { failOn: judge.failOn } : {}),
              });
            },
          }
        : {}),
      select: (all) => {
        folded = all.length;
        if (!job.sampling) return all;
        const outcome = sampleSessions(all, job.sampling);
        sampling = sampleCounts(outcome);
        return outcome.kept;
      },
    });
    return {
      ok: true,
      sessions: sessions.length,
      messages: sessions.reduce((n, s) => n + s.messages.length, 0),
      written: sessions.length > 0 || folded === 0,
      ...(sampling ? { sampling } : {}),
      ...(judged ? { judged } : {}),
      logs,
    };
  }
  const results = await settleDirectory(job.dir);
  const sessions = results.flatMap((r) => r.sessions);
  return {
    ok: true,
    sessions: sessions.length,
    messages: sessions.reduce((n, s) => n + s.messages.length, 0),
    written: sessions.length > 0,
    recovered: results
      .filter((r) => r.sessions.length > 0)
      .map((r) => ({ cassette: r.cassette, sessions: r.sessions.length, messages: r.sessions.reduce((n, s) => n + s.messages.length, 0) })),
    logs,
  };
}

run(workerData as FoldJob).then(
  (result) => parentPort!.postMessage(result),
  (err: unknown) => parentPort!.postMessage({ ok: false, error: (err as Error).message } satisfies FoldResult),
);
