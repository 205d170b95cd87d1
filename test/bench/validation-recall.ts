#!/usr/bin/env node
/**
 * `npm run bench -- validation-recall`: the validator's recall and false positives, measured by
 * transport and protocol revision (docs/validation.md, "Recall and false positives"). For every
 * cell (a transport that carries a revision), the official v2 SDK client runs one script through
 * the real `record` CLI (live validation) against test/servers/defect-server.ts, once on the clean
 * server and once per seeded defect (test/helpers/defect-sessions.ts); each defect should raise
 * exactly its rule at its answer, live and in `validate`. Then real servers we did not write
 * (real-findings.ts), whose findings are checked against what the tests hold true of them.
 * Markdown on stdout, progress on stderr.
 *
 * Settings (environment): RECALL_ONLY=defects|real measures one half (default both).
 */
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { emptyCassette } from '../../lib/cassette/cassette.js';
import { expectedOutcomes } from '../helpers/defect-script.js';
import {
  CARRIERS,
  carries,
  DEFECT_RUNS,
  judge,
  recordHttp,
  recordStdio,
  runName,
  type Carrier,
  type Judgement,
  type Seeded,
  type Verdicts,
} from '../helpers/defect-sessions.js';
import { where } from '../helpers/real-server.js';
import { tempDir } from '../helpers/tmp.js';
import { DEFECTS, REVISIONS, type Defect, type Revision } from '../servers/defect-server.js';
import { realServerFindings } from './real-findings.js';
import { markdownTable } from './report.js';
import { Scope } from './scope.js';

const LABEL: Record<Carrier, string> = {
  stdio: 'stdio',
  'http-json': 'HTTP stateless, JSON',
  'http-sse': 'HTTP stateless, SSE',
  'http-2025': 'HTTP session',
};

/** One run of a cell: the clean server (no defect) or one defect, and what came of it. */
interface RunResult {
  defect?: Defect;
  verdicts: Verdicts;
  judgement: Judgement;
  /** The defect's own verdict (undefined for the clean server). */
  seeded?: Seeded;
}

interface Cell {
  carrier: Carrier;
  revision: Revision;
  /** By run name: `clean`, or the defect. */
  runs: Map<string, RunResult>;
}

const progress = (s: string): boolean => process.stderr.write(s);

/** stdio recordings made at once: each waits for its low-priority cassette writer at its end. */
const STDIO_AT_ONCE = 3;

/** `f` over `items`, at most `width` at a time, the results in the order of `items`. */
async function inPool<T, R>(items: readonly T[], width: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) out[i] = await f(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

async function measureCell(scope: Scope, dir: string, carrier: Carrier, revision: Revision): Promise<Cell> {
  progress(`recall: ${carrier} ${revision} ...`);
  const t0 = Date.now();
  const verdicts =
    carrier === 'stdio'
      ? new Map(await inPool(DEFECT_RUNS, STDIO_AT_ONCE, async (run) => [run, await recordStdio(dir, revision, run)] as const))
      : await recordHttp(scope.t, dir, carrier, revision);
  const runs = new Map<string, RunResult>();
  for (const [run, v] of verdicts) {
    const judgement = judge(v, revision, run);
    const seeded = judgement.seeded[0];
    runs.set(runName(run), { ...(run[0] ? { defect: run[0] } : {}), verdicts: v, judgement, ...(seeded ? { seeded } : {}) });
  }
  progress(` ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  return { carrier, revision, runs };
}

const cellName = (c: Cell): string => `${LABEL[c.carrier]} ${c.revision}`;
const mark = (s: Seeded): string =>
  s.caughtLive && s.caughtOffline ? '✓' : s.caughtLive || s.caughtOffline ? `✓ ${s.caughtLive ? 'live' : 'offline'} only` : '**✗**';

/** A cell's counts: seeded rules, caught live and offline, missed; findings on the clean server
 * and other findings in the defect runs, offline and live. */
function counts(c: Cell): number[] {
  const runs = [...c.runs.values()];
  const seeded = runs.flatMap((r) => (r.seeded?.rule ? [r.seeded] : []));
  const clean = c.runs.get('clean')!.judgement;
  const defectRuns = runs.filter((r) => r.defect).map((r) => r.judgement);
  return [
    seeded.length,
    seeded.filter((x) => x.caughtLive).length,
    seeded.filter((x) => x.caughtOffline).length,
    seeded.filter((x) => !(x.caughtLive && x.caughtOffline)).length,
    clean.extraOffline.length,
    clean.extraLive.length,
    defectRuns.reduce((n, j) => n + j.extraOffline.length, 0),
    defectRuns.reduce((n, j) => n + j.extraLive.length, 0),
  ];
}

/** The per-cell summary, and the sum over the cells: recall live and offline, and false positives. */
function summaryTable(cells: Cell[]): string {
  const row = (label: string[], [n, live, offline, missed, cleanOff, cleanLive, extraOff, extraLive]: number[]): string[] => [
    ...label,
    `${live}/${n}`,
    `${offline}/${n}`,
    String(missed),
    `${cleanOff} / ${cleanLive}`,
    `${extraOff} / ${extraLive}`,
  ];
  const all = cells.map(counts);
  const total = all.reduce((sum, c) => sum.map((x, i) => x + c[i]!), new Array<number>(8).fill(0));
  return markdownTable(
    [
      'transport',
      'revision',
      'recall live',
      'recall offline',
      'missed',
      'FP, clean server (offline / live)',
      'FP, defect runs (offline / live)',
    ],
    [...cells.map((c, i) => row([LABEL[c.carrier], c.revision], all[i]!)), row(['all cells', ''], total)],
  );
}

/** Defect by cell: ✓ caught live and offline, n/a where the defect breaks no rule of the revision. */
function matrix(cells: Cell[]): string {
  const defects = Object.keys(DEFECTS) as Defect[];
  const rows = defects.map((d) => [
    d,
    [...new Set(cells.map((c) => c.runs.get(d)!.seeded?.rule).filter(Boolean))].join(', ') || '-',
    ...cells.map((c) => {
      const r = c.runs.get(d)!;
      const extra = r.judgement.extraOffline.length + r.judgement.extraLive.length > 0 ? ' (+FP)' : '';
      return (r.seeded?.rule ? mark(r.seeded) : 'n/a') + extra;
    }),
  ]);
  return markdownTable(['defect', 'rule', ...cells.map(cellName)], rows);
}

/** Every false positive and miss, and every step the client saw otherwise than expected, in words. */
function details(cells: Cell[]): string[] {
  const out: string[] = [];
  for (const c of cells) {
    for (const [name, { defect, verdicts, judgement, seeded }] of c.runs) {
      const label = `${cellName(c)}, ${name === 'clean' ? 'clean server' : name}`;
      const cassette = { ...emptyCassette(), sessions: verdicts.sessions };
      for (const v of judgement.extraOffline) out.push(`FP ${label}: ${v.rule} @ ${where(cassette, v)}: ${v.message}`);
      const offline = new Set(judgement.extraOffline.map((v) => `${v.session}#${v.seq} ${v.rule}`));
      for (const v of judgement.extraLive.filter((x) => !offline.has(`${x.session}#${x.seq} ${x.rule}`)))
        out.push(`FP (live only) ${label}: ${v.rule} @ ${where(cassette, v)}: ${v.message}`);
      if (seeded?.rule && !(seeded.caughtLive && seeded.caughtOffline))
        out.push(`MISS ${label}: ${seeded.rule} not found once at its answer (live ${seeded.caughtLive}, offline ${seeded.caughtOffline})`);
      const expected = expectedOutcomes(defect ? [defect] : [], c.revision);
      for (const [step, want] of Object.entries(expected))
        if (verdicts.outcomes[step] !== want)
          out.push(`CLIENT ${label}: ${step} came to ${verdicts.outcomes[step] ?? 'nothing'}, not ${want}`);
      if (verdicts.exit && (verdicts.exit.code !== 0 || verdicts.exit.signal))
        out.push(`RECORDER ${label}: exited ${JSON.stringify(verdicts.exit)}; ${verdicts.stderr ?? ''}`);
    }
  }
  return out;
}

export async function measureDefects(scope: Scope): Promise<string> {
  const dir = tempDir(scope.t, 'mcpc-recall-');
  const cells: Cell[] = [];
  for (const carrier of CARRIERS)
    for (const revision of REVISIONS) if (carries(carrier, revision)) cells.push(await measureCell(scope, dir, carrier, revision));
  const notes = details(cells);
  return [
    '### Seeded defects, by transport and revision',
    '',
    summaryTable(cells),
    '',
    matrix(cells),
    '',
    ...(notes.length ? notes.map((n) => `- ${n}`) : ['No false positive, no miss, every client step as expected.']),
  ].join('\n');
}

/** The whole report, on stdout (once written: run.ts exits right after). */
export async function validationRecall(): Promise<void> {
  const only = process.env.RECALL_ONLY;
  const scope = new Scope();
  const started = Date.now();
  const parts: string[] = [];
  try {
    if (only !== 'real') parts.push(await measureDefects(scope));
    if (only !== 'defects') parts.push(await realServerFindings(scope));
  } finally {
    await scope.close();
  }
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  parts.unshift(
    `Command: \`npm run bench -- validation-recall\` (${minutes} min, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} at the end).`,
  );
  await new Promise<void>((r) => process.stdout.write(parts.join('\n\n') + '\n', () => r()));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await validationRecall();
