/**
 * `check --fuzz-seconds N`: after the replays, the build is fuzzed for N seconds from the cassettes
 * check replays (validators/fuzz), and each finding joins check's findings, so every report
 * (summary, JUnit, SARIF, annotations, JSON) carries it and it fails the check at `--fail-on`.
 * A finding's location is the cassette that replays it (in `--fuzz-out`), or, when no fresh server
 * showed it again, the seed cassette.
 */
import { fuzz } from '../validators/fuzz/fuzz-run.js';
import { fingerprint } from './findings.js';
import type { Target } from './recording-target.js';
import type { CheckFuzz, Finding } from './types.js';

export interface FuzzStepOptions {
  seconds: number;
  out: string;
  seed?: number;
  target: Target;
  headers?: Record<string, string>;
  timeoutMs?: number;
  allowSideEffects?: boolean;
  err?: NodeJS.WritableStream;
}

export async function fuzzStep(seeds: readonly string[], o: FuzzStepOptions): Promise<{ fuzz: CheckFuzz; findings: Finding[] }> {
  const { run } = await fuzz(
    {
      cassettes: [...seeds],
      command: 'command' in o.target ? o.target.command : [],
      ...('url' in o.target ? { url: o.target.url } : {}),
      seconds: o.seconds,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      out: o.out,
      ...(o.timeoutMs !== undefined ? { timeout: o.timeoutMs } : {}),
      allowSideEffects: Boolean(o.allowSideEffects),
      header: Object.entries(o.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
      failOn: 'warning',
    },
    o.err,
  );
  const findings = run.findings.map(
    (f): Finding => ({
      kind: 'fuzz',
      id: f.observed.rule ?? `fuzz/${f.observed.kind}`,
      severity: f.observed.severity,
      expected: false,
      message: `${f.observed.message} (fuzz case ${f.case.id}: ${f.case.change}${f.cassette ? '' : '; not seen again on a fresh server'})`,
      file: f.cassette ?? seeds[0]!,
      line: 1,
      method: f.observed.method,
      ...(f.observed.tool ? { name: f.observed.tool } : {}),
      fingerprint: fingerprint(['fuzz', f.observed.signature]),
    }),
  );
  return {
    fuzz: {
      seed: run.seed,
      seconds: o.seconds,
      cases: run.cases,
      durationMs: run.durationMs,
      findings: run.findings.length,
      out: o.out,
      ...(run.error ? { error: run.error } : {}),
    },
    findings,
  };
}
