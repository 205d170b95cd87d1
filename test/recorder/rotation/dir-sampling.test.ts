/**
 * `--sample`, `--keep-violations` and judge-at-write in `--cassette-dir` mode: each cassette is
 * folded in the rotation's worker thread, which judges what live validation left undone and then
 * samples, as the write of a single cassette does. Real peers: the official v2 SDK client and
 * server (test/servers/echo-secrets-server.ts), over stdio and stateless Streamable HTTP.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { samplePoint } from '../../../recorder/capture/sampling.js';
import { DIR_IDENTITY_FILE } from '../../../recorder/rotation/ownership.js';
import { recordStdio, startEchoHttp, type Steps } from '../../helpers/capture.js';
import { v2Client } from '../../helpers/real-server.js';
import { journalHolds } from '../../helpers/recording.js';
import { tempDir } from '../../helpers/tmp.js';
import { cassetteFiles, journalsIn, logLine, readJson, startDirRecorder } from './dir-helpers.js';

type Sampling = { kept: number; keptForViolations: number; sampledOut: { sessions: number; messages: number } };
const samplingOf = (stderr: string): Sampling => {
  const line = logLine(stderr, 'recording stopped') as { sampling?: Sampling } | undefined;
  if (!line?.sampling) throw new Error(`no sampling in the 'recording stopped' line:\n${stderr}`);
  return line.sampling;
};

const clean: Steps = async (client) => {
  await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
};
/** Arguments that are no object: the server's error is a JSON-RPC error the live validator flags
 * (ENV-JSONRPC20, an error). */
const bad: Steps = async (client) => {
  await client.callTool({ name: 'add', arguments: 'one' as never }).catch(() => {});
};
const INFO = ['--log-level', 'info'];

test('stdio --cassette-dir --sample 0: a clean session is left out (no cassette, no journal), counted in the summary', async (t) => {
  const dir = join(tempDir(t), 'caps');
  const r = await recordStdio(t, dir, ['--sample', '0', '--keep-violations', 'none', ...INFO], clean, '--cassette-dir');
  t.is(r.code, 0, r.stderr);
  // Only the directory's identity (retention's owner id, recorder/rotation/ownership.ts) is there.
  t.deepEqual(readdirSync(dir), [DIR_IDENTITY_FILE], 'nothing kept, nothing left');
  const s = samplingOf(r.stderr);
  t.is(s.kept, 0);
  t.is(s.sampledOut.sessions, 1);
  t.true(s.sampledOut.messages >= 4, 'its messages are counted');
});

test('stdio --cassette-dir --sample 0 keeps a session with an error (--keep-violations default); --keep-violations none does not', async (t) => {
  const dir = join(tempDir(t), 'kept');
  const kept = await recordStdio(
    t,
    dir,
    ['--sample', '0', ...INFO],
    async (client) => {
      await bad(client);
      await journalHolds(dir, '"ENV-JSONRPC20"'); // the live verdict is in before the session ends
    },
    '--cassette-dir',
  );
  t.is(kept.code, 0, kept.stderr);
  t.is(cassetteFiles(dir).length, 1);
  t.is(kept.cassette.sessions.length, 1);
  t.true((kept.cassette.sessions[0]!.violations ?? []).some((v) => v.rule === 'ENV-JSONRPC20' && v.severity === 'error'));
  t.is(samplingOf(kept.stderr).keptForViolations, 1);
  const other = join(tempDir(t), 'dropped');
  const dropped = await recordStdio(
    t,
    other,
    ['--sample', '0', '--keep-violations', 'none', ...INFO],
    async (client) => {
      await bad(client);
      await journalHolds(other, '"ENV-JSONRPC20"');
    },
    '--cassette-dir',
  );
  t.is(dropped.code, 0, dropped.stderr);
  t.deepEqual(readdirSync(other), [DIR_IDENTITY_FILE], 'no level keeps it');
  t.is(samplingOf(dropped.stderr).sampledOut.sessions, 1);
});

test('stdio --cassette-dir with a live validator that sheds: the cassette is judged at write, so --sample 0 still keeps the session with the error', async (t) => {
  const dir = join(tempDir(t), 'shed');
  const log = join(dirname(dir), 'proxy.log');
  const r = await recordStdio(t, dir, ['--sample', '0', ...INFO, '--log-file', log], bad, '--cassette-dir', {
    MCPC_LIVE_MAX_BACKLOG: '200',
  });
  t.is(r.code, 0, r.stderr);
  // The recorder exits with its server; its finisher judges the session as it writes the
  // cassette, samples it after, and says so in the log.
  const judged = /live validation did not judge every message of .*; all \d+ were judged when the cassette was written/;
  for (let i = 0; i < 400 && !judged.test(readFileSync(log, 'utf8')); i++) await new Promise((res) => setTimeout(res, 25));
  const text = readFileSync(log, 'utf8');
  // The validator sheds once it runs; on a machine so busy that it had not started when the
  // session ended, nothing was judged live. Either way the write judges every message.
  if (!/live validation fell more than .* behind the traffic and shed/.test(text))
    t.log('the live validator had not started when the session ended: everything was judged at write');
  t.regex(text, judged);
  t.is(r.cassette.sessions.length, 1, 'kept for the violation judged at write');
  t.true((r.cassette.sessions[0]!.violations ?? []).some((v) => v.rule === 'ENV-JSONRPC20' && v.severity === 'error'));
  t.regex(text, /sessions? saved into/);
});

test('stateless HTTP --cassette-dir --rotate-sessions 4 --sample 0.5: exchanges are sampled in every rotated cassette, the one with an error always kept', async (t) => {
  const dir = join(tempDir(t), 'http');
  const upstream = await startEchoHttp(t);
  const proxy = await startDirRecorder(t, upstream, dir, ['--rotate-sessions', '4', '--sample', '0.5']);
  const client = v2Client();
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
  try {
    for (let i = 0; i < 24; i++) await client.callTool({ name: 'add', arguments: { a: i, b: 1 } });
    await bad(client);
    await journalHolds(dir, '"ENV-JSONRPC20"'); // stored in the cassette being written
  } finally {
    await client.close();
  }
  const end = await proxy.stop();
  t.is(end.code, 0, end.stderr);
  t.deepEqual(journalsIn(dir), []);
  const s = samplingOf(end.stderr);
  t.true(s.kept > 0 && s.sampledOut.sessions > 0, `some kept (${s.kept}), some left out (${s.sampledOut.sessions})`);
  t.true(s.kept + s.sampledOut.sessions >= 27, 'every exchange is one or the other (25 calls, the handshake)');
  const files = cassetteFiles(dir);
  t.true(files.length >= 2, `rotated: ${files.length} cassettes`);
  const sessions = files.flatMap((f) => readJson(f).sessions);
  t.is(sessions.length, s.kept);
  const withError = sessions.filter((x) => (x.violations ?? []).some((v) => v.rule === 'ENV-JSONRPC20' && v.severity === 'error'));
  t.is(withError.length, 1, 'the exchange with the error is kept');
  for (const x of sessions)
    if (!withError.includes(x)) t.true(samplePoint(x.mcpSessionId ?? x.id) < 0.5, 'kept by the sample: under the fraction');
  t.is(s.keptForViolations, samplePoint(withError[0]!.mcpSessionId ?? withError[0]!.id) < 0.5 ? 0 : 1);
});
