import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { tempDir } from '../../helpers/tmp.js';
import { startTappedUpstream } from '../../helpers/http-taps.js';
import { runV1HttpScenario } from '../../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';
import { cassetteFiles, cli, journalsIn, logLine, node, readJson, startDirRecorder, until, validateJson } from './dir-helpers.js';

const run = promisify(execFile);

test('--rotate-sessions 1 over Streamable HTTP: one cassette per v1 SDK session, each valid as soon as it is closed, names in time order', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, v1SessionfulHandler());
  const proxy = await startDirRecorder(t, upstream.url, dir, ['--rotate-sessions', '1']);
  const sums: string[] = [];
  for (const n of [1, 2, 3]) {
    const got = await runV1HttpScenario(proxy.url, async (client) => ({
      add: await client.callTool({ name: 'add', arguments: { a: n, b: 100 } }),
    }));
    sums.push(JSON.stringify(got.add));
    if (n === 2) {
      // The proxy is still running: the first session's cassette is closed and readable now.
      await until(() => cassetteFiles(dir).length >= 1 && journalsIn(dir).length === 1, 'the first cassette');
      const first = cassetteFiles(dir)[0]!;
      const report = await validateJson([first]);
      t.deepEqual(
        report.violations.filter((v) => v.severity === 'error'),
        [],
        'the closed cassette validates while the proxy runs',
      );
      const shown = await run(node, [cli, 'show', first, '--json']);
      t.is((JSON.parse(shown.stdout) as { sessions: unknown[] }).sessions.length, 1);
    }
  }
  const end = await proxy.stop();
  t.is(end.code, 0, end.stderr);
  const files = cassetteFiles(dir);
  t.is(files.length, 3, 'a session per cassette');
  t.deepEqual(journalsIn(dir), [], 'every journal folded');
  const cassettes = files.map(readJson);
  const starts = cassettes.map((c) => c.sessions[0]!.startedAt);
  t.deepEqual([...starts].sort(), starts, 'names sort by time');
  for (const [i, c] of cassettes.entries()) {
    t.is(c.sessions.length, 1);
    const text = JSON.stringify(c.sessions[0]!.messages.map((m) => m.json));
    t.true(text.includes(`"text":"${i + 1 + 100}"`), `session ${i + 1}'s answer is in cassette ${i + 1}`);
    t.truthy(c.sessions[0]!.messages.find((m) => (m.json as { method?: string }).method === 'initialize'));
  }
  const all = await validateJson([dir]);
  t.is(all.summary.cassettes, 3, 'validate reads the directory');
  t.deepEqual(
    all.violations.filter((v) => v.severity === 'error'),
    [],
  );
  const stopped = logLine(end.stderr, 'recording stopped');
  t.like(stopped, { cassettesRotated: 3, paused: false, bytesNotRecorded: 0 });
  t.true((stopped?.messagesRecorded as number) >= 3 * 5);
  t.is(sums.length, 3);
});
