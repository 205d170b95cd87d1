import test from 'ava';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadCassette } from '../../lib/cassette/store.js';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { NO_METRICS } from '../../lib/metrics.js';
import type { Severity } from '../../lib/violation.js';
import { samplePoint, sampleSessions } from '../../recorder/capture/sampling.js';
import { journalHolds } from '../helpers/recording.js';
import { recordHttp, recordStdio, startEchoHttp, type Steps } from '../helpers/capture.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * `--sample` under the official v2 client and a real v2 SDK server: the share of sessions kept
 * (of exchanges on stateless HTTP), sessions with a violation at `--keep-violations` always kept,
 * and the counts of what was left out in the end-of-session summary.
 */
function summaryOf(stderr: string): {
  sampling: { kept: number; keptForViolations: number; sampledOut: { sessions: number; messages: number } };
} {
  const line = stderr.split('\n').find((l) => l.includes('"session saved"'));
  if (!line) throw new Error(`no summary in ${stderr}`);
  return JSON.parse(line);
}

const clean: Steps = async (client) => {
  await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
};
/** Arguments that are no object: the server refuses the request with a long multi-line
 * message, which the live validator warns about (ENV-ERR-MSG). */
const warned =
  (dir: string): Steps =>
  async (client) => {
    await client.callTool({ name: 'add', arguments: 'one' as never }).catch(() => {});
    // The live verdicts come from a worker thread that may still be loading on a busy machine.
    await journalHolds(dir, '"ENV-ERR-MSG"');
  };
const INFO = ['--log-level', 'info'];

test('stdio --sample 0: a clean session is left out, counted in the summary; the cassette is not written', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'out.cassette.json');
  const r = await recordStdio(t, path, ['--sample', '0', '--keep-violations', 'none', ...INFO], clean);
  t.is(r.code, 0, r.stderr);
  t.false(existsSync(path), 'nothing kept');
  const s = summaryOf(r.stderr).sampling;
  t.is(s.kept, 0);
  t.is(s.sampledOut.sessions, 1, r.stderr);
  t.true(s.sampledOut.messages >= 4, 'its messages are counted');
});

test('stdio --sample 0 keeps a session with a violation at --keep-violations (default error); --keep-violations none does not', async (t) => {
  const dir = tempDir(t);
  const kept = await recordStdio(t, join(dir, 'kept.cassette.json'), ['--sample', '0', ...INFO], warned(dir));
  t.is(kept.code, 0, kept.stderr);
  t.is(kept.cassette.sessions.length, 1);
  t.true((kept.cassette.sessions[0]!.violations ?? []).some((v) => v.rule === 'ENV-JSONRPC20' && v.severity === 'error'));
  t.is(summaryOf(kept.stderr).sampling.keptForViolations, 1);
  const other = tempDir(t);
  const path = join(other, 'dropped.cassette.json');
  const dropped = await recordStdio(t, path, ['--sample', '0', '--keep-violations', 'none', ...INFO], warned(other));
  t.is(dropped.code, 0, dropped.stderr);
  t.false(existsSync(path), 'no level keeps it');
  t.is(summaryOf(dropped.stderr).sampling.sampledOut.sessions, 1);
});

const session = (id: string, severities: Severity[]): RecordedSession =>
  ({ id, messages: [{}, {}], violations: severities.map((severity) => ({ rule: 'R', severity })) }) as unknown as RecordedSession;

test('the --keep-violations level: a session is kept for a violation at that severity or above', (t) => {
  const out = (id: string) => samplePoint(id) >= 0.5;
  const ids = Array.from({ length: 40 }, (_, i) => `s${i}`)
    .filter(out)
    .slice(0, 3);
  const sessions = [session(ids[0]!, ['info']), session(ids[1]!, ['warning']), session(ids[2]!, ['error'])];
  const keptAt = (level: Severity | 'none') =>
    sampleSessions(sessions, { fraction: 0.5, keepViolations: level }, NO_METRICS).kept.map((s) => s.id);
  t.deepEqual(keptAt('error'), [ids[2]]);
  t.deepEqual(keptAt('warning'), [ids[1], ids[2]]);
  t.deepEqual(keptAt('info'), ids);
  t.deepEqual(keptAt('none'), []);
  const outcome = sampleSessions(sessions, { fraction: 0.5, keepViolations: 'error' }, NO_METRICS);
  t.deepEqual(outcome.sampledOut, { sessions: 2, messages: 4 });
});

test('stateless HTTP --sample 0.5: exchanges are sampled one by one, by the hash of their session', async (t) => {
  const dir = tempDir(t);
  const upstream = await startEchoHttp(t);
  const path = join(dir, 'half.cassette.json');
  const r = await recordHttp(t, upstream, path, ['--sample', '0.5', '--keep-violations', 'none', ...INFO], async (client) => {
    for (let i = 0; i < 24; i++) await client.callTool({ name: 'add', arguments: { a: i, b: 1 } });
  });
  t.is(r.code, 0, r.stderr);
  const s = summaryOf(r.stderr).sampling;
  t.true(s.kept > 0 && s.sampledOut.sessions > 0, `some kept (${s.kept}), some left out (${s.sampledOut.sessions})`);
  t.true(s.kept + s.sampledOut.sessions >= 26, 'every exchange is one or the other (24 calls, the handshake)');
  const cassette = loadCassette(path);
  t.is(cassette.sessions.length, s.kept);
  for (const session of cassette.sessions) t.true(samplePoint(session.mcpSessionId ?? session.id) < 0.5, 'kept: under the fraction');
});

test('stateless HTTP --sample 0: only the exchange with a violation is kept', async (t) => {
  const dir = tempDir(t);
  const upstream = await startEchoHttp(t);
  const path = join(dir, 'violations.cassette.json');
  const r = await recordHttp(t, upstream, path, ['--sample', '0', ...INFO], async (client) => {
    await clean(client);
    await warned(dir)(client);
    await clean(client);
  });
  t.is(r.code, 0, r.stderr);
  const cassette = loadCassette(path);
  t.is(cassette.sessions.length, 1);
  t.true((cassette.sessions[0]!.violations ?? []).some((v) => v.rule === 'ENV-JSONRPC20'));
  const s = summaryOf(r.stderr).sampling;
  t.is(s.keptForViolations, 1);
  t.true(s.sampledOut.sessions >= 3);
});
