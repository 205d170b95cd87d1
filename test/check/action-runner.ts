/**
 * Runs the composite Action in action.yml the way a GitHub runner does, on this machine: each
 * `run:` step with bash, its `${{ }}` expressions substituted (inputs with their defaults,
 * github.action_path, runner.temp, steps.<id>.outputs.<name>), in the environment GitHub sets
 * (GITHUB_ACTIONS, GITHUB_WORKSPACE, GITHUB_OUTPUT a fresh file per step and read back as the
 * step's outputs, GITHUB_STEP_SUMMARY, GITHUB_ENV, RUNNER_TEMP). A `uses:` step is not run (it
 * is another repository's action): its `if:` and `with:` are evaluated and handed back.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ExecutionContext } from 'ava';
import { root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { cleanEnv } from './support.js';

export interface ActionStep {
  name?: string;
  id?: string;
  if?: string;
  shell?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

export interface ActionMetadata {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: ActionStep[] };
  [key: string]: unknown;
}

export const loadAction = (): ActionMetadata => parse(readFileSync(join(root, 'action.yml'), 'utf8')) as ActionMetadata;

export interface StepRun {
  step: ActionStep;
  /** Whether its `if:` held (true when it has none). */
  ran: boolean;
  code?: number;
  stdout?: string;
  stderr?: string;
  outputs: Record<string, string>;
  /** A `uses:` step: its `with:` values, substituted. */
  with?: Record<string, string>;
}

export interface ActionRun {
  steps: StepRun[];
  outputs: Record<string, string>;
  /** The job failed at the first `run:` step that exited non-zero (its code), or 0. */
  code: number;
}

/** `key=value` lines (the only form the Action writes). */
function readOutputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

interface Contexts {
  inputs: Record<string, string>;
  steps: Record<string, Record<string, string>>;
  env: NodeJS.ProcessEnv;
}

function value(path: string, c: Contexts): string {
  const [scope, a, b, d] = path.split('.');
  if (scope === 'inputs') return c.inputs[a!] ?? '';
  if (scope === 'github' && a === 'action_path') return root;
  if (scope === 'runner' && a === 'temp') return c.env.RUNNER_TEMP ?? '';
  if (scope === 'steps' && b === 'outputs') return c.steps[a!]?.[d!] ?? '';
  throw new Error(`the Action uses a context this runner does not know: ${path}`);
}

/** The `${{ }}` expressions the Action uses: a context value, or `==`/`!=` comparisons of values
 * and string literals joined by `&&`. */
export function evaluate(expr: string, c: Contexts): string | boolean {
  const term = (t: string): string => {
    const s = t.trim();
    return /^'.*'$/.test(s) ? s.slice(1, -1) : value(s, c);
  };
  const parts = expr.split('&&').map((p) => p.trim());
  if (parts.length === 1 && !/[!=]=/.test(parts[0]!)) return term(parts[0]!);
  return parts.every((p) => {
    const m = /^(.+?)\s*(==|!=)\s*(.+)$/.exec(p);
    if (!m) throw new Error(`cannot evaluate ${p}`);
    return m[2] === '==' ? term(m[1]!) === term(m[3]!) : term(m[1]!) !== term(m[3]!);
  });
}

const substitute = (text: string, c: Contexts): string => text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, e: string) => String(evaluate(e, c)));

export async function runAction(
  t: ExecutionContext,
  given: Record<string, string>,
  env: NodeJS.ProcessEnv,
  parent: string,
): Promise<ActionRun> {
  // Step scripts and output files of this run (tests run at the same time).
  const work = mkdtempSync(join(parent, 'run-'));
  const action = loadAction();
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) inputs[name] = given[name] ?? spec.default ?? '';
  for (const name of Object.keys(given)) if (!(name in action.inputs)) throw new Error(`the Action has no input ${name}`);
  const c: Contexts = { inputs, steps: {}, env };
  const runs: StepRun[] = [];
  let code = 0;
  for (const [n, step] of action.runs.steps.entries()) {
    const cond = step.if === undefined ? true : evaluate(step.if.replace(/^\$\{\{\s*|\s*\}\}$/g, ''), c);
    if (!cond || code !== 0) {
      runs.push({ step, ran: false, outputs: {} });
      continue;
    }
    if (step.uses) {
      runs.push({
        step,
        ran: true,
        outputs: {},
        with: Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, substitute(String(v), c)])),
      });
      continue;
    }
    const output = join(work, `output-${n}`);
    writeFileSync(output, '');
    const stepEnv: NodeJS.ProcessEnv = { ...env, GITHUB_OUTPUT: output, GITHUB_ACTION_PATH: root };
    for (const [k, v] of Object.entries(step.env ?? {})) stepEnv[k] = substitute(String(v), c);
    // As the runner does for `shell: bash`: bash --noprofile --norc -eo pipefail {0}.
    const script = join(work, `step-${n}.sh`);
    writeFileSync(script, substitute(step.run!, c));
    const r = await collect(
      spawnTracked(t, 'bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd: env.GITHUB_WORKSPACE!, env: stepEnv }),
    );
    const outputs = readOutputs(output);
    if (step.id) c.steps[step.id] = outputs;
    runs.push({ step, ran: true, code: r.code ?? -1, stdout: r.stdout.toString(), stderr: r.stderr, outputs });
    if (r.code !== 0) code = r.code ?? -1;
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, o]) => [k, substitute(o.value, c)]));
  return { steps: runs, outputs, code };
}

/** The environment GitHub sets for a job step (the rest of ours, minus any GITHUB_* of our own):
 * a folder `name` under `work` holds its temporary directory, job summary and GITHUB_ENV. */
export function githubEnv(work: string, workspace: string, name: string): NodeJS.ProcessEnv {
  const dir = join(work, name);
  mkdirSync(join(dir, 'temp'), { recursive: true });
  writeFileSync(join(dir, 'summary.md'), '');
  writeFileSync(join(dir, 'env'), '');
  return cleanEnv({
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
    GITHUB_ENV: join(dir, 'env'),
    GITHUB_REPOSITORY: 'example/mcp-server',
    GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567',
    GITHUB_REF: 'refs/pull/7/merge',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_RUN_ID: '1',
    RUNNER_OS: 'Linux',
    RUNNER_TEMP: join(dir, 'temp'),
  });
}
