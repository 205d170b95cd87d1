import test, { type ExecutionContext } from 'ava';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { removeDir } from '../helpers/tmp.js';
import { recordTargetCassette, replayTarget } from '../replay/target-client.js';
import { type ActionStep, githubEnv as githubEnvIn, runAction } from './action-runner.js';
import { parseSarif, readJunit } from './support.js';

/**
 * The sharded workflow of docs/ci.md, run the way test/check/action.test.ts runs action.yml: the
 * matrix read from the page, the Action's composite steps run with bash once per matrix value
 * (its `with:` as the page gives it, the build swapped for the replay target's seeded break),
 * each part's report folder put where `actions/download-artifact` puts it, then the merge job's
 * `merge-reports` step run with bash. The merged reports and exit status are those of the Action
 * run once, unsharded, on the same cassettes.
 */
interface Job {
  needs?: string;
  if?: string;
  strategy?: { 'fail-fast'?: boolean; matrix: { shard: number[] } };
  steps: ActionStep[];
}

function shardedWorkflow(): { check: Job; merge: Job } {
  const page = readFileSync(join(root, 'docs', 'ci.md'), 'utf8');
  const section = page.slice(page.indexOf('### Sharded across a job matrix'));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
  return (parse(yaml) as { jobs: { check: Job; merge: Job } }).jobs;
}

const work = mkdtempSync(join(tmpdir(), 'mcp-cassette-action-shards-'));
const workspace = join(work, 'workspace');
test.before(async () => {
  mkdirSync(join(workspace, 'cassettes', 'more'), { recursive: true });
  const first = join(workspace, 'cassettes', 'target.cassette.json');
  await recordTargetCassette(first);
  for (const name of ['more/second.cassette.json', 'more/third.cassette.json', 'zeta.cassette.json'])
    cpSync(first, join(workspace, 'cassettes', name));
  // The page's merge job runs this project's checkout at ./mcp-cassette, built.
  symlinkSync(root, join(workspace, 'mcp-cassette'));
});
test.after.always(() => removeDir(work));

const githubEnv = (name: string): NodeJS.ProcessEnv => githubEnvIn(work, workspace, name);

const BUILD = `${node} ${replayTarget} --regression tool-removed`;
/** The workflow's expression for the matrix value (a GitHub expression, not a JS template). */
const MATRIX_SHARD = ['${{', 'matrix.shard', '}}'].join(' ');

/** The page's `with:` for matrix value `shard`, the build swapped for the test's. */
function withFor(step: ActionStep, shard: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(step.with ?? {})) out[k] = String(v).replace(MATRIX_SHARD, String(shard));
  return { ...out, 'server-command': BUILD };
}

async function bash(t: ExecutionContext, script: string, env: NodeJS.ProcessEnv): Promise<Awaited<ReturnType<typeof collect>>> {
  return collect(spawnTracked(t, 'bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: workspace, env }));
}

test('docs/ci.md: the matrix parts through the Action, then the merge job, equal the Action run once', async (t) => {
  const { check, merge } = shardedWorkflow();
  const shards = check.strategy!.matrix.shard;
  t.deepEqual(shards, [1, 2, 3]);
  t.is(check.strategy!['fail-fast'], false, 'every part runs to the end');
  const action = check.steps.find((s) => s.uses === './mcp-cassette')!;
  t.is(String(action.with!['total-shards']), String(shards.length), 'total-shards is the size of the matrix');
  t.is(action.with!.shard, MATRIX_SHARD);
  const upload = check.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
  t.is(upload.if, 'always()', "a failing part's reports are uploaded too");
  t.is(upload.with!.path, `\${{ steps.${action.id}.outputs.report-dir }}`);
  t.is(merge.needs, 'check');
  t.is(merge.if, 'always()');
  const download = merge.steps.find((s) => s.uses?.startsWith('actions/download-artifact'))!;
  const pattern = new RegExp(`^${download.with!.pattern!.replace('*', '.*')}$`);
  const mergeStep = merge.steps.find((s) => s.run?.includes('merge-reports'))!;

  const once = await runAction(t, withFor(action, 0), githubEnv('once'), work);
  const unsharded = { ...withFor(action, 0) };
  delete unsharded.shard;
  delete unsharded['total-shards'];
  const full = await runAction(t, unsharded, githubEnv('full'), work);
  t.is(once.outputs.verdict, 'error', 'shard 0 of 3 is refused');
  t.is(full.outputs['exit-code'], '1', 'the seeded break fails the unsharded run');
  t.true(full.steps.find((s) => s.step.uses?.startsWith('github/codeql-action'))!.ran, 'unsharded, the Action uploads SARIF');

  for (const shard of shards) {
    const env = githubEnv(`part-${shard}`);
    const part = await runAction(t, withFor(action, shard), env, work);
    t.is(part.outputs['exit-code'], '1', `part ${shard} fails on its own breaking change`);
    t.false(
      part.steps.find((s) => s.step.uses?.startsWith('github/codeql-action'))!.ran,
      'a part leaves the SARIF upload to the merge job',
    );
    const name = upload.with!.name!.replace(MATRIX_SHARD, String(shard));
    t.regex(name, pattern, `the merge job downloads ${name}`);
    cpSync(part.outputs['report-dir']!, join(workspace, download.with!.path!, name), { recursive: true });
  }

  const env = githubEnv('merge');
  const merged = await bash(t, mergeStep.run!, env);
  t.is(String(merged.code), full.outputs['exit-code']!, merged.stderr);
  const out = join(workspace, /--out (\S+)/.exec(mergeStep.run!)![1]!);
  t.is(readFileSync(join(out, 'summary.md'), 'utf8'), readFileSync(full.outputs.summary!, 'utf8'), 'the same job summary');
  t.is(readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8'), readFileSync(full.outputs.summary!, 'utf8'), "on the merge job's page");
  const sarifUpload = merge.steps.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif'))!;
  const sarif = parseSarif(t, readFileSync(join(workspace, sarifUpload.with!.sarif_file!), 'utf8'));
  t.deepEqual(sarif, parseSarif(t, readFileSync(full.outputs.sarif!, 'utf8')), 'the same SARIF, uploaded once');
  const cases = (file: string) => readJunit(t, file).cases.map((c) => [c.classname, c.name, c.failure?.message ?? '']);
  t.deepEqual(cases(join(out, 'junit.xml')), cases(full.outputs.junit!), 'the same JUnit cases');
});

test('the Action refuses shard without total-shards: verdict error, exit 2, one line', async (t) => {
  const run = await runAction(t, { 'server-command': BUILD, shard: '1' }, githubEnv('half'), work);
  t.is(run.outputs.verdict, 'error');
  t.is(run.code, 2);
  t.regex(run.steps.find((s) => s.step.id === 'check')!.stdout!, /::error title=mcp-cassette check::give shard and total-shards together/);
});
