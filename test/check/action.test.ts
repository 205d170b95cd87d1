import test from 'ava';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { node } from '../helpers/paths.js';
import { recordTargetCassette, replayTarget } from '../replay/target-client.js';
import { githubEnv as githubEnvIn, loadAction, runAction } from './action-runner.js';
import { readJunit, readSarif } from './support.js';
import { removeDir } from '../helpers/tmp.js';

// action.yml against the metadata rules GitHub publishes for actions, then its composite steps
// run here with the environment a runner sets, against the replay target and a seeded break.
const work = mkdtempSync(join(tmpdir(), 'mcp-cassette-action-'));
const workspace = join(work, 'workspace');
test.before(async () => {
  mkdirSync(join(workspace, 'cassettes'), { recursive: true });
  await recordTargetCassette(join(workspace, 'cassettes', 'target.cassette.json'));
});
test.after.always(() => removeDir(work));

const githubEnv = (name: string): NodeJS.ProcessEnv => githubEnvIn(work, workspace, name);

test('action.yml follows the published metadata rules for a composite action', (t) => {
  const action = loadAction();
  for (const field of ['name', 'description', 'runs'] as const) t.truthy(action[field], `required field ${field}`);
  t.is(action.runs.using, 'composite');
  t.true(action.runs.steps.length > 0);
  for (const [name, input] of Object.entries(action.inputs)) {
    t.regex(name, /^[A-Za-z_][A-Za-z0-9_-]*$/, `input id ${name}: letters, digits, - and _, starting with a letter or _`);
    t.truthy(input.description, `input ${name} has a description`);
    if (input.default !== undefined) t.is(typeof input.default, 'string', `input ${name}: defaults are strings`);
  }
  for (const [name, output] of Object.entries(action.outputs)) {
    t.regex(name, /^[A-Za-z_][A-Za-z0-9_-]*$/);
    t.truthy(output.description);
    t.regex(output.value, /^\$\{\{ steps\.[\w-]+\.outputs\.[\w-]+ \}\}$/, `composite output ${name} has a value from a step`);
  }
  const ids = new Set<string>();
  for (const step of action.runs.steps) {
    t.true(Boolean(step.run) !== Boolean(step.uses), `step ${step.name}: exactly one of run and uses`);
    if (step.run) t.truthy(step.shell, `run step ${step.name} names its shell (required in composite actions)`);
    if (step.id) {
      t.false(ids.has(step.id), `step id ${step.id} is unique`);
      ids.add(step.id);
    }
  }
  // The inputs the issue names, and every expression refers to an input or step that exists.
  for (const name of ['server-command', 'url', 'cassettes', 'fail-on', 'expected-failures', 'sarif-upload', 'shard', 'total-shards'])
    t.truthy(action.inputs[name], `input ${name}`);
  for (const name of ['verdict', 'summary', 'junit', 'sarif', 'json', 'report-dir']) t.truthy(action.outputs[name], `output ${name}`);
  const text = readFileSync(new URL('../../../action.yml', import.meta.url), 'utf8');
  for (const [, name] of text.matchAll(/inputs\.([\w-]+)/g)) t.truthy(action.inputs[name!], `inputs.${name} exists`);
  for (const [, id] of text.matchAll(/steps\.([\w-]+)\.outputs/g)) t.true(ids.has(id!), `steps.${id} exists`);
});

test('the composite steps pass on the same build: verdict pass, reports written, the job summary appended, SARIF handed to the upload', async (t) => {
  const env = githubEnv('same');
  const run = await runAction(t, { 'server-command': `${node} ${replayTarget}` }, env, work);
  t.is(run.code, 0, run.steps.map((s) => `${s.step.name}: ${s.code} ${s.stderr ?? ''}`).join('\n'));
  t.is(run.outputs.verdict, 'pass');
  t.is(run.outputs['exit-code'], '0');
  t.true(run.outputs.summary!.startsWith(env.RUNNER_TEMP!), 'reports go to the runner temp folder by default');
  t.regex(readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8'), /^## mcp-cassette check: ✅ passed/);
  t.is(readJunit(t, run.outputs.junit!).failures, 0);
  const upload = run.steps.find((s) => s.step.uses?.startsWith('github/codeql-action/upload-sarif'))!;
  t.true(upload.ran, 'sarif-upload defaults to on');
  t.is(upload.with?.sarif_file, run.outputs.sarif);
  readSarif(t, upload.with!.sarif_file!);
});

test('the composite steps fail the job on a seeded breaking change, after the reports and the upload', async (t) => {
  const env = githubEnv('broken');
  const run = await runAction(
    t,
    {
      'server-command': `${node} ${replayTarget} --regression tool-removed`,
      cassettes: 'cassettes/*.cassette.json\n',
      'sarif-upload': 'false',
    },
    env,
    work,
  );
  t.is(run.outputs.verdict, 'fail');
  t.is(run.outputs['exit-code'], '1');
  const check = run.steps.find((s) => s.step.id === 'check')!;
  t.is(check.code, 0, 'the check step itself succeeds, so the reports are kept and uploaded');
  t.regex(check.stdout!, /^::error file=cassettes\/target\.cassette\.json,line=\d+,title=breaking change tool-removed::/m);
  t.false(run.steps.find((s) => s.step.uses)!.ran, 'sarif-upload: false skips the upload');
  const verdict = run.steps.at(-1)!;
  t.is(verdict.code, 1, 'the last step fails the job');
  t.is(run.code, 1);
  t.true(readSarif(t, run.outputs.sarif!).some((r) => r.ruleId === 'replay/tool-removed'));
  t.regex(readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8'), /❌ failed/);
});

test('the composite steps report "error" when neither a server command nor a URL is given', async (t) => {
  const run = await runAction(t, {}, githubEnv('none'), work);
  t.is(run.outputs.verdict, 'error');
  t.is(run.code, 2);
  t.regex(run.steps.find((s) => s.step.id === 'check')!.stdout!, /::error title=mcp-cassette check::give the action server-command/);
});
