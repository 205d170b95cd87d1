/**
 * `mcp-cassette merge-reports <dir...> --out DIR`: the parts of a sharded `check` (one folder per
 * CI runner, each written by `check --shard K/N --json <dir>/results.json`) made into the one
 * set of reports an unsharded run writes: the JSON report, the Markdown summary, JUnit and SARIF,
 * with the same cases, verdicts and exit status.
 *
 * It lives beside check because it only reads and writes check's reports: it runs no build and
 * imports no feature of its own. A part's JSON report is the whole of what that part found
 * (check/types.ts `CheckRun`), so the parts are merged as data, cassette by cassette in the
 * unsharded run's order, and every report is rendered again from the merged run by the same
 * renderers `check` uses; merging rendered files (JUnit suites, SARIF rule indexes, summary
 * tables) would only approximate that. Two things are judged here rather than in any part: the
 * verdict and counts of the whole, and stale baseline entries (an entry is stale only when no
 * part's cassettes had it, check/stale-entries.ts). A part missing, given twice, or from another
 * run is an error that names it.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { CommandArgs } from '../lib/command.js';
import { CassetteError } from '../lib/errors.js';
import { writeReports, type CheckIo } from './check-run.js';
import { fails } from './findings.js';
import { readJsonReport, type CheckReportFile } from './report-json.js';
import { countRun, emptyCounts } from './counts.js';
import { EXIT, type CassetteCheck, type CheckRun, type Finding, type ShardPart, type StaleCandidate } from './types.js';

/** The file a part's folder holds its JSON report in (the GitHub Action writes it there). */
export const PART_REPORT = 'results.json';

export interface PartReport {
  /** The path given on the command line. */
  given: string;
  file: string;
  report: CheckReportFile & { shard: ShardPart };
}

const mismatch = (message: string): CassetteError => new CassetteError('MCPC_SHARDS_MISMATCH', message);

/** Each folder's results.json (or the JSON file given itself), read. */
export function readParts(paths: readonly string[]): PartReport[] {
  return paths.map((given) => {
    const isDir = existsSync(given) && statSync(given).isDirectory();
    const file = isDir ? join(given, PART_REPORT) : given;
    const report = readJsonReport(file);
    if (!report.shard)
      throw mismatch(`${file} is not a part of a sharded run (check ran without --shard K/N); give the folders of the check --shard runs`);
    return { given, file, report: report as PartReport['report'] };
  });
}

/** Every part of one run, each once, that together replayed each cassette once. */
function checkParts(parts: readonly PartReport[]): void {
  if (parts.length === 0) throw new CassetteError('MCPC_USAGE', 'merge-reports needs the folders of the parts to merge');
  const first = parts[0]!;
  const total = first.report.shard.total;
  for (const p of parts) {
    if (p.report.shard.total !== total)
      throw mismatch(
        `${first.file} is part ${first.report.shard.index}/${total} but ${p.file} is part ${p.report.shard.index}/${p.report.shard.total}: merge the parts of one run`,
      );
  }
  const byIndex = new Map<number, PartReport>();
  for (const p of parts) {
    const twin = byIndex.get(p.report.shard.index);
    if (twin) throw mismatch(`part ${p.report.shard.index}/${total} is given twice, in ${twin.file} and ${p.file}; give each part once`);
    byIndex.set(p.report.shard.index, p);
  }
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length) {
    throw mismatch(
      `part${missing.length === 1 ? '' : 's'} ${missing.map((i) => `${i}/${total}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: the run has ${total} parts and ${parts.length} ${parts.length === 1 ? 'was' : 'were'} given; run the missing part again (check --shard K/${total}) or give its folder`,
    );
  }
  for (const p of parts) {
    for (const field of ['target', 'baselineBuild', 'expectedFailures', 'failOn'] as const) {
      if (p.report[field] !== first.report[field])
        throw mismatch(
          `${p.file} is not a part of the same run as ${first.file}: its ${field} is ${JSON.stringify(p.report[field])}, not ${JSON.stringify(first.report[field])}`,
        );
    }
  }
  const of = first.report.shard.of;
  const owner: (PartReport | undefined)[] = Array.from({ length: of }, () => undefined);
  for (const p of parts) {
    for (const pos of p.report.shard.positions) {
      const other = owner[pos];
      if (p.report.shard.of !== of || pos >= of || other)
        throw mismatch(
          `${p.file} and ${(other ?? first).file} split different lists of cassettes (${p.report.shard.of} and ${of} matched); run every part on the same commit with the same --cassettes`,
        );
      owner[pos] = p;
    }
  }
  const unplaced = owner.indexOf(undefined);
  if (unplaced !== -1)
    throw mismatch(`cassette ${unplaced + 1} of ${of} is in no part; run every part on the same commit with the same --cassettes`);
}

/** `path` moved from the folder a part ran in to `cwd` (the same relative path), when under it. */
function rebaser(root: string, cwd: string): (path: string) => string {
  if (resolve(root) === resolve(cwd)) return (p) => p;
  return (p) => {
    const rel = relative(root, p);
    return rel.startsWith('..') || rel === p ? p : join(cwd, rel);
  };
}

function rebased(
  report: PartReport['report'],
  cwd: string,
): { cassettes: CassetteCheck[]; findings: Finding[]; errors: string[]; stale: StaleCandidate[] } {
  const move = rebaser(report.root, cwd);
  const finding = (f: Finding): Finding => ({ ...f, file: move(f.file) });
  return {
    cassettes: report.cassettes.map((c) => ({
      ...c,
      path: move(c.path),
      ...(c.source !== undefined ? { source: move(c.source) } : {}),
      replay: { ...c.replay, cassette: move(c.replay.cassette) },
      ...(c.probe ? { probe: { ...c.probe, cassette: move(c.probe.cassette) } } : {}),
    })),
    findings: report.findings.map(finding),
    errors: report.errors.map((e) => (resolve(report.root) === resolve(cwd) ? e : e.split(`${report.root}${sep}`).join(`${cwd}${sep}`))),
    stale: report.shard.stale.map((s) => ({ rank: s.rank, finding: finding(s.finding) })),
  };
}

/** The parts as the one run an unsharded `check` would have made. */
export function mergeParts(parts: readonly PartReport[], cwd = process.cwd()): CheckRun {
  checkParts(parts);
  const ordered = [...parts].sort((a, b) => a.report.shard.index - b.report.shard.index);
  const first = ordered[0]!.report;
  const placed: { pos: number; cassette: CassetteCheck; findings: Finding[] }[] = [];
  const errors: { pos: number; text: string }[] = [];
  const candidates = new Map<string, StaleCandidate>();
  const seen = new Set<string>();
  for (const p of ordered) {
    const shard = p.report.shard;
    const part = rebased(p.report, cwd);
    // A part whose base build failed replayed none of its cassettes: only its error is merged.
    if (part.cassettes.length === shard.positions.length) {
      let at = 0;
      part.cassettes.forEach((cassette, i) => {
        const n = shard.findings[i] ?? 0;
        placed.push({ pos: shard.positions[i]!, cassette, findings: part.findings.slice(at, at + n) });
        at += n;
      });
    }
    // A replay's error starts with its cassette's path: it goes where the cassette goes.
    for (const text of part.errors) errors.push({ pos: placed.find((x) => text.startsWith(`${x.cassette.path}: `))?.pos ?? -1, text });
    for (const c of part.stale) if (!candidates.has(c.finding.fingerprint)) candidates.set(c.finding.fingerprint, c);
    for (const s of shard.seen) seen.add(s);
  }
  placed.sort((a, b) => a.pos - b.pos);
  errors.sort((a, b) => a.pos - b.pos);
  const starts = ordered.map((p) => Date.parse(p.report.startedAt));
  const ends = ordered.map((p, i) => starts[i]! + p.report.durationMs);
  const run: CheckRun = {
    target: first.target,
    ...(first.baselineBuild !== undefined ? { baselineBuild: first.baselineBuild } : {}),
    ...(first.expectedFailures !== undefined ? { expectedFailures: first.expectedFailures } : {}),
    failOn: first.failOn,
    startedAt: new Date(Math.min(...starts)).toISOString(),
    durationMs: Math.max(...ends) - Math.min(...starts),
    cassettes: placed.map((x) => x.cassette),
    findings: placed.flatMap((x) => x.findings),
    errors: errors.map((e) => e.text),
    verdict: 'pass',
    counts: emptyCounts(),
  };
  // As in an unsharded run: staleness is judged only when every cassette could be replayed.
  if (run.errors.length === 0) {
    const stale = [...candidates.values()].filter((c) => !seen.has(c.finding.fingerprint)).sort((a, b) => a.rank - b.rank);
    run.findings.push(...stale.map((c) => c.finding));
  }
  run.counts = countRun(run);
  run.verdict = run.errors.length ? 'error' : run.findings.some((f) => fails(f, run.failOn)) ? 'fail' : 'pass';
  return run;
}

/** `merge-reports`' handler: merges, writes the four reports into --out (and the summary onto
 * $GITHUB_STEP_SUMMARY when set), prints the console report, and exits as the unsharded run
 * would have. */
export async function mergeReportsCommand(args: CommandArgs, io: CheckIo = {}): Promise<number> {
  const full = { out: io.out ?? process.stdout, err: io.err ?? process.stderr, env: io.env ?? process.env };
  const out = String(args.out);
  const run = mergeParts(readParts((args.dirs as unknown[]).map(String)));
  mkdirSync(out, { recursive: true });
  const files = {
    json: join(out, PART_REPORT),
    summary: join(out, 'summary.md'),
    junit: join(out, 'junit.xml'),
    sarif: join(out, 'results.sarif'),
  };
  writeReports(run, { _: [], ...files, quiet: args.quiet === true }, full, false);
  return EXIT[run.verdict];
}
