/**
 * The findings of one cassette's check: each breaking change of the replay, each spec violation
 * in the replay's live traffic (tied back to the recorded message, see traffic-map.ts) and each
 * failed probe, located in the cassette file, with the expected-failures file applied.
 */
import { createHash } from 'node:crypto';
import { relative } from 'node:path';
import type { RecordedSession } from '../lib/cassette/cassette.js';
import type { ReplayExpectation } from '../lib/expected-failures.js';
import { pointerKeys } from '../lib/json-pointer.js';
import type { Verdict } from '../lib/cassette/masked-verdicts.js';
import { SEVERITY_ORDER, type Violation } from '../lib/violation.js';
import type { Difference, InteractionResult, ReplayResult } from '../replay/index.js';
import type { ProbeRun } from '../validators/probes/report.js';
import { CassetteLines } from './locate.js';
import { matchSessions, traceMessage, valueAt } from './traffic-map.js';
import type { Finding } from './types.js';

/** Whether a finding fails the check: a breaking change, or anything else at --fail-on, unless
 * it is expected. */
export function fails(f: Finding, failOn: 'error' | 'warning'): boolean {
  if (f.expected) return false;
  return f.kind === 'breaking' || f.kind === 'changed' || SEVERITY_ORDER[f.severity] >= SEVERITY_ORDER[failOn];
}

export function fingerprint(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

const repoPath = (file: string): string => relative(process.cwd(), file).split('\\').join('/');

/** The tool (prompt, resource) a difference is about: the interaction's name, or the member of a
 * list the path points into (`/result/tools/stamp`). */
export function subjectOf(i: Pick<InteractionResult, 'name'>, d: Pick<Difference, 'path'>): string | undefined {
  if (i.name !== undefined) return i.name;
  const keys = pointerKeys(d.path);
  return keys[0] === 'result' && ['tools', 'prompts', 'resources', 'resourceTemplates'].includes(keys[1] ?? '') ? keys[2] : undefined;
}

export const replayCovers = (e: ReplayExpectation, i: InteractionResult, d: Difference): boolean =>
  e.kind === d.kind && (e.tool === '*' || e.tool === subjectOf(i, d));

export interface CassetteFindingsInput {
  /** The cassette file replayed (findings are located in it). */
  file: string;
  recorded: readonly RecordedSession[];
  replay: ReplayResult;
  /** The replay's own traffic, as the recording proxy saved it. */
  live: readonly RecordedSession[];
  liveViolations: readonly Verdict[];
  recordedViolations: readonly Violation[];
  expectedViolations: ReadonlySet<Violation>;
  replayExpectations: readonly ReplayExpectation[];
  probe?: ProbeRun;
}

export function cassetteFindings(input: CassetteFindingsInput): Finding[] {
  const at: Where = { lines: new CassetteLines(input.file), file: repoPath(input.file) };
  const out: Finding[] = [...replayFindings(input, at)];
  // A fuzz finding's cassette whose finding is still there: the build still does what the fuzzer
  // found, which fails the check as a breaking change does (its answers are not compared).
  const f = input.replay.finding;
  if (f?.reproduced) {
    out.push({
      kind: 'fuzz',
      id: f.rule ?? `fuzz/${f.kind}`,
      severity: 'error',
      expected: false,
      message: `the fuzz finding is still there: ${f.how} (found as: ${f.recorded})`,
      file: input.file,
      line: 1,
      method: f.method,
      ...(f.tool ? { name: f.tool } : {}),
      fingerprint: fingerprint(['fuzz', f.signature]),
    });
  }
  out.push(...violationFindings(input, at), ...probeFindings(input, at));
  // The same rule on the same call twice (two calls of one tool): the second is its own result.
  const seen = new Map<string, number>();
  for (const f of out) {
    const n = seen.get(f.fingerprint) ?? 0;
    seen.set(f.fingerprint, n + 1);
    if (n > 0) f.fingerprint = fingerprint([f.fingerprint, n]);
  }
  return out;
}

/** Where findings are located: the cassette's lines, and its path from the repository's root. */
interface Where {
  lines: CassetteLines;
  file: string;
}

/** Each breaking (or changed) difference of the replay. */
function replayFindings(input: CassetteFindingsInput, { lines, file }: Where): Finding[] {
  const out: Finding[] = [];
  for (const s of input.replay.sessions) {
    for (const i of s.interactions) {
      for (const d of i.differences) {
        if (d.verdict !== 'breaking' && d.verdict !== 'changed') continue;
        const subject = subjectOf(i, d);
        out.push({
          kind: d.verdict,
          id: d.kind,
          severity: 'error',
          expected: input.replayExpectations.some((e) => replayCovers(e, i, d)),
          message: d.message,
          file: input.file,
          line: lines.lineOf(s.index - 1, i.seq),
          session: s.index,
          seq: i.seq,
          method: i.method,
          ...(subject !== undefined ? { name: subject } : {}),
          path: d.path,
          ...('recorded' in d ? { recorded: d.recorded } : {}),
          ...('live' in d ? { live: d.live } : {}),
          fingerprint: fingerprint([d.verdict, d.kind, file, s.id, i.method, subject ?? null, d.path]),
        });
      }
    }
  }
  return out;
}

/** Each spec violation of the build's traffic, at warning or above or expected, traced back to
 * the recorded message it answers. */
function violationFindings(input: CassetteFindingsInput, { lines, file }: Where): Finding[] {
  const out: Finding[] = [];
  const matched = matchSessions(input.recorded, input.live);
  const recordedKeys = new Set(input.recordedViolations.map((v) => `${v.rule}\u0000${v.path}`));
  for (const v of input.liveViolations) {
    const expected = input.expectedViolations.has(v);
    if (!expected && SEVERITY_ORDER[v.severity] < SEVERITY_ORDER.warning) continue;
    const liveIndex = input.live.findIndex((s) => s.id === v.session);
    const recordedIndex = liveIndex === -1 ? -1 : matched[liveIndex]!;
    const recorded = recordedIndex === -1 ? undefined : input.recorded[recordedIndex];
    const traced = liveIndex === -1 ? {} : traceMessage(recorded, input.live[liveIndex]!, v.seq);
    const json = traced.anchor?.json as { method?: string; params?: { name?: string; uri?: string } } | undefined;
    const name = json?.params?.name ?? json?.params?.uri;
    const liveValue = traced.live?.json !== undefined ? valueAt(traced.live.json, v.path) : traced.live?.raw;
    const recordedValue = traced.counterpart?.json !== undefined ? valueAt(traced.counterpart.json, v.path) : undefined;
    out.push({
      kind: 'violation',
      id: v.rule,
      severity: v.severity,
      expected,
      isNew: !recordedKeys.has(`${v.rule}\u0000${v.path}`),
      message: v.message,
      file: input.file,
      line: recorded ? lines.lineOf(recordedIndex, traced.anchor?.seq) : 1,
      ...(recorded ? { session: recordedIndex + 1 } : {}),
      ...(traced.anchor ? { seq: traced.anchor.seq } : {}),
      ...(json?.method !== undefined ? { method: json.method } : {}),
      ...(name !== undefined ? { name } : {}),
      path: v.path,
      ...(v.evidence ? { evidence: v.evidence } : {}),
      ...(recordedValue !== undefined ? { recorded: recordedValue } : {}),
      ...(liveValue !== undefined ? { live: liveValue } : {}),
      spec: v.spec,
      fingerprint: fingerprint(['violation', v.rule, file, recorded?.id ?? null, json?.method ?? null, name ?? null, v.path]),
    });
  }
  return out;
}

/** Each failed probe. */
function probeFindings(input: CassetteFindingsInput, { lines, file }: Where): Finding[] {
  const out: Finding[] = [];
  for (const [k, r] of (input.probe?.results ?? []).entries()) {
    if (r.outcome !== 'fail') continue;
    out.push({
      kind: 'probe',
      id: r.rule,
      severity: r.severity,
      expected: r.baseline === 'expected',
      message: `probe ${r.probe} failed: ${r.reason}`,
      file: input.file,
      line: lines.lineOf(0),
      ...(r.sent !== undefined ? { recorded: r.sent } : {}),
      ...(r.received !== undefined ? { live: r.received } : {}),
      spec: r.spec,
      probeResult: k,
      fingerprint: fingerprint(['probe', r.probe, r.rule, file, k]),
    });
  }
  return out;
}
