/**
 * `mcp-cassette probe <cassette> -- <server command>` / `--url <endpoint>`: active conformance
 * probes derived from a cassette's recorded traffic. Only the server named on the command line is
 * ever contacted; the target recorded in the cassette is never used.
 */
import { isStdout, useColour, writeReportText } from '../../lib/cli-output.js';
import { resolve } from 'node:path';
import { loadCassette } from '../../lib/cassette/store.js';
import { CassetteError } from '../../lib/errors.js';
import { parseHeaderOptions } from '../../lib/http-headers.js';
import { SEVERITY_ORDER, type Severity } from '../../lib/violation.js';
import { FORMATS, type Format } from '../reports/formats.js';
import { applyBaseline, loadBaseline, type BaselineEntry } from './baseline.js';
import { PROBES, runProbes } from './index.js';
import { derivePlan } from './plan.js';
import { renderProbeRun, toValidationRun, type ProbeRun } from './report.js';
import { httpTarget, stdioTarget, type Target } from './target.js';
import type { CommandModule } from '../../lib/command.js';
import { settleBeforeRead } from '../../lib/cassette/settle-read.js';

export interface ProbeArgs {
  cassette: string;
  command: string[];
  url?: string;
  timeout?: number;
  allowSideEffects: boolean;
  format: string;
  failOn?: string;
  output?: string;
  expectedFailures?: string;
  header: string[];
  probe: string[];
  eofGrace?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

/** Runs the probes and returns the run (for tests and the command). */
export async function probe(args: ProbeArgs): Promise<ProbeRun> {
  if (!args.url && !args.command.length) {
    throw new CassetteError(
      'MCPC_USAGE',
      "name the server to probe: mcp-cassette probe <cassette> -- <server command> [args...], or --url <endpoint> (the cassette's recorded server is never probed on its own)",
    );
  }
  if (args.url && args.command.length) throw new CassetteError('MCPC_USAGE', 'give either a server command after -- or --url, not both');
  if (args.url) {
    let u: URL;
    try {
      u = new URL(args.url);
    } catch {
      throw new CassetteError('MCPC_USAGE', `--url is not a URL: ${args.url}`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new CassetteError('MCPC_USAGE', `--url must be http(s): ${args.url}`);
  }
  if (args.timeout !== undefined && !(args.timeout > 0))
    throw new CassetteError('MCPC_USAGE', `--timeout must be a positive number of ms (got ${String(args.timeout)})`);
  for (const p of args.probe)
    if (!PROBES.some((x) => x.id === p))
      throw new CassetteError('MCPC_USAGE', `unknown --probe ${p} (known: ${PROBES.map((x) => x.id).join(', ')})`);
  const ids = PROBES.map((p) => p.id);
  const baseline: BaselineEntry[] = args.expectedFailures ? loadBaseline(args.expectedFailures, ids) : [];
  const cassettePath = resolve(args.cassette);
  await settleBeforeRead([cassettePath]);
  const plan = derivePlan(loadCassette(cassettePath));
  const timeoutMs = args.timeout ?? DEFAULT_TIMEOUT_MS;
  const target: Target = args.url ? httpTarget(args.url, timeoutMs, parseHeaderOptions(args.header)) : stdioTarget(args.command, timeoutMs);
  const results = await runProbes(
    plan,
    target,
    { timeoutMs, allowSideEffects: args.allowSideEffects, eofGraceMs: args.eofGrace ?? 2000 },
    args.probe,
  );
  const { stale } = applyBaseline(results, baseline);
  return {
    cassette: cassettePath,
    target: target.label,
    transport: target.transport,
    results,
    stale,
    ...(args.expectedFailures ? { baselineFile: args.expectedFailures } : {}),
  };
}

/** Exit status: 0, or 1 when --fail-on found a (new) failure or a stale baseline entry at that
 * level, 2 for usage errors, an unreadable cassette or baseline, or a server nothing could be
 * learnt from (it never answered). */
export async function probeCommand(args: ProbeArgs): Promise<number> {
  if (!(FORMATS as readonly string[]).includes(args.format)) {
    throw new CassetteError('MCPC_USAGE', `--format must be one of ${FORMATS.join(', ')} (got ${JSON.stringify(args.format)})`);
  }
  if (args.failOn !== undefined && args.failOn !== 'error' && args.failOn !== 'warning') {
    throw new CassetteError('MCPC_USAGE', `--fail-on must be error or warning (got ${JSON.stringify(args.failOn)})`);
  }
  const run = await probe(args);
  const out = renderProbeRun(args.format as Format, run, isStdout(args.output) && args.format === 'text' && useColour(process.stdout));
  writeReportText(args.output, out);
  const judged = run.results.some((r) => r.outcome === 'pass' || r.outcome === 'fail');
  if (!judged && run.results.some((r) => r.outcome === 'inconclusive')) {
    const why = run.results.find((r) => r.outcome === 'inconclusive')!.reason;
    process.stderr.write(`mcp-cassette: no probe could judge ${run.target}: ${why}\n`);
    return 2;
  }
  if (args.failOn === undefined) return 0;
  const threshold = SEVERITY_ORDER[args.failOn as Severity];
  return toValidationRun(run).violations.some((v) => SEVERITY_ORDER[v.severity] >= threshold) ? 1 : 0;
}

/** The handler of PROBE_COMMAND (probe-command.ts), loaded when the command runs. */
export const PROBE_HANDLER: CommandModule['handler'] = async (args) =>
  probeCommand({
    cassette: String(args.cassette),
    command: (args['--'] ?? []).map(String),
    ...(args.url !== undefined ? { url: String(args.url) } : {}),
    ...(args.timeout !== undefined ? { timeout: Number(args.timeout) } : {}),
    allowSideEffects: Boolean(args['allow-side-effects']),
    format: String(args.format),
    ...(args['fail-on'] !== undefined ? { failOn: String(args['fail-on']) } : {}),
    ...(args.output !== undefined ? { output: String(args.output) } : {}),
    ...(args['expected-failures'] !== undefined ? { expectedFailures: String(args['expected-failures']) } : {}),
    header: (args.header as unknown[]).map(String),
    probe: (args.probe as unknown[]).map(String),
    ...(args['eof-grace'] !== undefined ? { eofGrace: Number(args['eof-grace']) } : {}),
  });
