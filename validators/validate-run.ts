import { resolve } from 'node:path';
import { loadCassette } from '../lib/cassette/store.js';
import { expandCassettePaths } from '../lib/cassette/directory.js';
import { CassetteError } from '../lib/errors.js';
import { isStdout, useColour, writeReportText } from '../lib/cli-output.js';
import { SEVERITY_ORDER, type Severity } from '../lib/violation.js';
import { validateSessions } from './validate-sessions.js';
import { validateRecordings } from './recording.js';
import { FORMATS, render, type Format } from './reports/formats.js';
import type { ValidationRun } from './reports/summary.js';
import { RULES } from './rules/index.js';
import { officialSchemaRules } from './official-schema.js';
import type { Rule } from './rule.js';
import type { CommandModule } from '../lib/command.js';
import { loadExpectedFailures } from '../lib/expected-failures.js';
import { applyExpectedViolations } from './expected-violations.js';
import { settleBeforeRead } from '../lib/cassette/settle-read.js';
import { maskedLiveVerdicts } from '../lib/cassette/masked-verdicts.js';

export interface ValidateArgs {
  cassettes: string[];
  format: string;
  /** An official MCP schema.json to check every message against exactly. */
  schema?: string;
  failOn?: string;
  output?: string;
  /** A YAML baseline: its `validate:` entries are expected, entries that no longer occur stale. */
  expectedFailures?: string;
}

export function validateCassettes(
  paths: string[],
  onRuleError?: (rule: string, err: unknown) => void,
  rules: readonly Rule[] = RULES,
): ValidationRun {
  const run: ValidationRun = { cassettes: [], violations: [] };
  // A directory stands for the cassettes in it (record --cassette-dir).
  for (const path of expandCassettePaths(paths)) {
    const cassette = loadCassette(path);
    run.cassettes.push({
      path,
      sessions: cassette.sessions.length,
      messages: cassette.sessions.reduce((n, s) => n + s.messages.length, 0),
    });
    const options = { rules, ...(onRuleError ? { onRuleError } : {}) };
    // Session by session (the stateless HTTP exchanges of a recording share the server's context),
    // then the rules that compare the sessions of one recording.
    const found = [...validateSessions(cassette.sessions, options), ...validateRecordings(cassette.sessions, options)];
    // Then what the live validator saw that the stored messages no longer show (masked at capture).
    for (const s of cassette.sessions) found.push(...maskedLiveVerdicts(s, found));
    for (const v of found) run.violations.push({ ...v, cassette: path });
  }
  return run;
}

/** `mcp-cassette validate <cassette...>`: 0 clean (or below --fail-on), 1 violations at the
 * --fail-on level, 2 a cassette that cannot be read. */
export async function validateCommand(args: ValidateArgs): Promise<number> {
  if (!(FORMATS as readonly string[]).includes(args.format)) {
    throw new CassetteError('MCPC_USAGE', `--format must be one of ${FORMATS.join(', ')} (got ${JSON.stringify(args.format)})`);
  }
  if (args.failOn !== undefined && args.failOn !== 'error' && args.failOn !== 'warning') {
    throw new CassetteError('MCPC_USAGE', `--fail-on must be error or warning (got ${JSON.stringify(args.failOn)})`);
  }
  await settleBeforeRead(args.cassettes);
  const rules = args.schema ? [...RULES, ...officialSchemaRules(resolve(args.schema))] : RULES;
  const baseline = args.expectedFailures !== undefined ? loadExpectedFailures(args.expectedFailures) : undefined;
  const found = validateCassettes(
    args.cassettes,
    (rule, err) => {
      process.stderr.write(
        `mcp-cassette: rule ${rule} failed on this input (a validator bug, please report it): ${(err as Error).message}\n`,
      );
    },
    rules,
  );
  const run = baseline ? applyExpectedViolations(found, baseline) : found;
  const text = render(args.format as Format, run, rules, isStdout(args.output) && args.format === 'text' && useColour(process.stdout));
  writeReportText(args.output, text);
  if (args.failOn === undefined) return 0;
  const threshold = SEVERITY_ORDER[args.failOn as Severity];
  return run.violations.some((v) => SEVERITY_ORDER[v.severity] >= threshold) ? 1 : 0;
}

/** The handler of VALIDATE_COMMAND (validate-command.ts), loaded when the command runs. */
export const VALIDATE_HANDLER: CommandModule['handler'] = async (args) =>
  validateCommand({
    ...(args.schema !== undefined ? { schema: String(args.schema) } : {}),
    cassettes: (args.cassette as string[]).map(String),
    format: String(args.format),
    ...(args['fail-on'] !== undefined ? { failOn: String(args['fail-on']) } : {}),
    ...(args.output !== undefined ? { output: String(args.output) } : {}),
    ...(args['expected-failures'] !== undefined ? { expectedFailures: String(args['expected-failures']) } : {}),
  });
