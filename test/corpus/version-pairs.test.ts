/**
 * Replay judged against real upgrades: one cassette per published version of server-everything
 * and server-filesystem (a real v1 SDK client session through `record`, driver.ts), replayed
 * against every other version of the same server in both directions, and against its own version
 * twice. Each replay must report exactly the ground truth of its pair (ground-truth.ts), and every
 * other interaction must be `same`. Each version is also replayed against itself the way a user
 * runs it: the CLI, in its own environment (get-env then answers differently), calibrated once.
 */
import test from 'ava';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { replayCassette, type ReplayResult } from '../../replay/index.js';
import { loadCassette } from '../../lib/cassette/store.js';
import { cli, node } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { recordCorpusSession } from './driver.js';
import { EXPECTED, timingDependent } from './ground-truth.js';
import { signatures } from './signatures.js';
import { EVERYTHING, FILESYSTEM, resetWorkspace, serverArgs, type CorpusVersion } from './versions.js';
import { removeDir } from '../helpers/tmp.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-corpus-'));
const workspace = join(dir, 'workspace');
const cassetteOf = (v: CorpusVersion) => join(dir, `${v.id}.cassette.json`);
const command = (v: CorpusVersion) => [node, ...serverArgs(v, workspace)];

test.before(async () => {
  for (const v of [...EVERYTHING, ...FILESYSTEM]) {
    // The filesystem tools write, edit and move files: every session starts from the same files.
    resetWorkspace(workspace);
    await recordCorpusSession(cassetteOf(v), command(v), { workspace });
  }
});
test.after.always(() => removeDir(dir));

/** The recorded server ran with the environment the SDK's stdio transport passes (HOME, PATH,
 * SHELL, TERM...); the replayed one gets the same, so get-env answers the same. */
const env = getDefaultEnvironment() as Record<string, string>;

async function replay(recorded: CorpusVersion, live: CorpusVersion): Promise<ReplayResult> {
  resetWorkspace(workspace);
  return replayCassette(cassetteOf(recorded), { command: command(live), config: false, env });
}

/** seq → whether the recorded request asked for a later page of a list (it carried a cursor). */
function pageRequests(v: CorpusVersion): Set<number> {
  const out = new Set<number>();
  for (const m of loadCassette(cassetteOf(v)).sessions[0]!.messages) {
    const params = (m.json as { params?: { cursor?: unknown } } | undefined)?.params;
    if (m.direction === 'client-to-server' && params?.cursor !== undefined) out.add(m.seq);
  }
  return out;
}

function check(
  t: import('ava').ExecutionContext,
  pair: string,
  recorded: CorpusVersion,
  r: ReplayResult,
  expected: readonly string[],
): void {
  t.is(r.error, undefined, `${pair}: the replay ran to the end`);
  const actual = signatures(r).filter((s) => !timingDependent(pair, s));
  const want = [...new Set(expected)].filter((s) => !timingDependent(pair, s)).sort();
  const missing = want.filter((s) => !actual.includes(s));
  const unexpected = actual.filter((s) => !want.includes(s));
  t.deepEqual({ missing, unexpected }, { missing: [], unexpected: [] }, `${pair}: differences as in the ground truth`);
  // Without a difference an interaction is `same`; a later page of a list may be skipped when the
  // live server pages differently (the list is compared as a whole).
  const pages = pageRequests(recorded);
  const odd = r.sessions
    .flatMap((s) => s.interactions)
    .filter((i) => i.differences.length === 0 && i.outcome !== 'same' && !(i.outcome === 'skipped' && pages.has(i.seq)))
    .map((i) => `#${i.seq} ${i.method} ${i.name ?? ''}: ${i.outcome}${i.note ? ` (${i.note})` : ''}`);
  t.deepEqual(odd, [], `${pair}: every other interaction is same`);
}

for (const versions of [EVERYTHING, FILESYSTEM]) {
  for (const a of versions) {
    test.serial(`${a.id} replayed against itself twice, the clock moving on: no difference`, async (t) => {
      for (const run of [1, 2]) check(t, `${a.id} -> ${a.id} (run ${run})`, a, await replay(a, a), []);
    });
    for (const b of versions) {
      if (a === b) continue;
      const pair = `${a.id} -> ${b.id}`;
      const expected = EXPECTED[pair];
      if (!expected) throw new Error(`ground-truth.ts has no entry for ${pair}`);
      test.serial(`${a.id} recorded, replayed against ${b.id}: the verdicts of the real upgrade`, async (t) => {
        check(t, pair, a, await replay(a, b), expected);
      });
    }
  }
}

/** `mcp-cassette replay [args] <cassette> -- <server>` as a user runs it: the CLI process's own
 * environment (not the recorded server's), from the workspace's initial state. */
async function cliReplay(
  t: import('ava').ExecutionContext,
  cassette: string,
  v: CorpusVersion,
  args: string[] = [],
  environment?: Record<string, string>,
): Promise<{ code: number | null; stdout: string }> {
  resetWorkspace(workspace);
  const child = spawnTracked(t, node, [cli, 'replay', '--no-progress', ...args, cassette, '--', ...command(v)], {
    ...(environment ? { env: environment } : {}),
  });
  const done = await collect(child);
  return { code: done.code, stdout: done.stdout.toString() + done.stderr };
}

for (const v of [...EVERYTHING, ...FILESYSTEM]) {
  test.serial(
    `${v.id} against itself through the CLI: exit 0 twice in a row in the recorded environment after one calibration${v.server === 'filesystem' ? ', and without one' : "; the CLI's own environment is not learned as volatility"}`,
    async (t) => {
      const cassette = join(dir, `${v.id}.cli.cassette.json`);
      copyFileSync(cassetteOf(v), cassette);
      const plain = await cliReplay(t, cassette, v);
      if (v.server === 'filesystem') {
        // Its only nondeterminism is the clock (get_file_info's Date.toString() times): the
        // built-in normalisers cover it.
        t.is(plain.code, 0, plain.stdout);
      } else {
        // get-env / printEnv returns the environment, which is the CLI's now (dozens of variables
        // the recorded server did not have): a real difference, of environment, not of build.
        t.is(plain.code, 1, plain.stdout);
        t.regex(plain.stdout, /tools\/call (printEnv|get-env)/);
      }
      // The filesystem tools write and move files: one run a calibration, from the initial state
      // (a second run would start from the first one's changes). In the CLI's environment the
      // runs agree with each other and not with the recording on get-env: not volatility, so
      // calibration says so and stores nothing for it.
      const calibrated = await cliReplay(t, cassette, v, ['--calibrate', v.server === 'filesystem' ? '1' : '2']);
      t.is(calibrated.code, 0, calibrated.stdout);
      if (v.server === 'everything') {
        t.regex(calibrated.stdout, /tools\/call (printEnv|get-env): not-token-volatility: .*the runs agree and the recording differs/);
        const learned = Object.values(loadCassette(cassette).calibration!.sessions).flatMap((e) => Object.values(e).map((x) => x.name));
        t.false(learned.includes('get-env') || learned.includes('printEnv'), learned.join(', '));
      }
      // In the recorded server's environment, the replay answers as recorded.
      for (const run of [1, 2]) {
        const report = join(dir, `${v.id}.cli-run-${run}.json`);
        const again = await cliReplay(t, cassette, v, ['--report', `json=${report}`], env);
        // everything 2026 asks for roots by a 350 ms timer and from get-roots-list: whether a
        // second roots/list comes (with its log line) depends on the speed of the run, which no
        // calibration can learn. Those are the only differences tolerated, and only from it.
        const result = JSON.parse(readFileSync(report, 'utf8')) as ReplayResult;
        t.is(result.error, undefined, `run ${run}: the replay ran to the end: ${again.stdout}`);
        const found = signatures(result);
        const raced = found.filter((sig) => timingDependent(`${v.id} -> ${v.id}`, sig));
        t.deepEqual(
          found.filter((sig) => !raced.includes(sig)),
          [],
          `run ${run}: ${again.stdout}`,
        );
        if (raced.length === 0) {
          t.is(again.code, 0, `run ${run}: ${again.stdout}`);
          t.regex(again.stdout, / 0 breaking, 0 changed, 0 warning, 0 compatible/, `run ${run}`);
        } else {
          // The race went the other way: the exit code and the summary line are still the ones
          // the report's verdicts call for (1 for a breaking difference, such as an unexpected
          // roots/list, else 0), and the line counts what the report counts.
          const breaking = raced.some((sig) => sig.endsWith(' breaking'));
          t.log(`run ${run}: the server's timing-dependent roots/list came (${raced.join('; ')}), exit ${again.code}`);
          t.is(result.outcome, breaking ? 'breaking' : 'passed', `run ${run}: ${again.stdout}`);
          t.is(again.code, breaking ? 1 : 0, `run ${run}: ${again.stdout}`);
          const { breaking: b, changed: ch, warning: w, compatible: c } = result.summary;
          t.true(
            again.stdout.includes(` ${b} breaking, ${ch} changed, ${w} warning, ${c} compatible`),
            `run ${run}: the summary line: ${again.stdout}`,
          );
        }
      }
    },
  );
}

test.serial(
  'a 2026.1.26 cassette calibrated against 2026.8.31, the wrong build with the same serverInfo (2.0.0): nothing of the upgrade is learned, and the next replay still reports it all',
  async (t) => {
    const recorded = EVERYTHING.find((v) => v.version === '2026.1.26')!;
    const live = EVERYTHING.find((v) => v.version === '2026.8.31')!;
    const cassette = join(dir, 'wrong-build.cassette.json');
    copyFileSync(cassetteOf(recorded), cassette);
    // In the recorded server's environment, so that get-env answers as recorded.
    const cal = await cliReplay(t, cassette, live, ['--calibrate'], env);
    t.is(cal.code, 0, cal.stdout);
    t.regex(cal.stdout, /NOT VOLATILITY \(not stored\)/);
    const stored = loadCassette(cassette).calibration!;
    t.deepEqual(stored.sessions, {}, 'nothing learned from another build');
    const report = join(dir, 'wrong-build.report.json');
    const after = await cliReplay(t, cassette, live, ['--report', `json=${report}`], env);
    const pair = `${recorded.id} -> ${live.id}`;
    const found = signatures(JSON.parse(readFileSync(report, 'utf8')) as ReplayResult).filter((sig) => !timingDependent(pair, sig));
    t.deepEqual(found, [...new Set(EXPECTED[pair])].filter((sig) => !timingDependent(pair, sig)).sort(), after.stdout);
  },
);
