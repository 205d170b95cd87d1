import test from 'ava';
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { delay } from '../../helpers/proc.js';
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

/** The journal the proxy writes into now, when it holds no record since it was opened (the
 * header only, or live verdicts on traffic of earlier files: those do not make a file hold
 * traffic), and no closed journal is waiting to be folded: all traffic is in closed cassettes. */
function onlyAnEmptyJournal(dir: string): string | undefined {
  const journals = journalsIn(dir);
  if (journals.length !== 1) return undefined;
  const path = join(dir, journals[0]!);
  const [, ...records] = readFileSync(path, 'utf8').split('\n');
  const verdict = (line: string): boolean => {
    try {
      return (JSON.parse(line) as { ev?: string }).ev === 'violation';
    } catch {
      return false; // the bytes of a chunk record
    }
  };
  return records.every((line) => line === '' || verdict(line)) ? path : undefined;
}

test('--rotate-interval over Streamable HTTP: cassettes close by time while traffic flows, and quiet periods or an idle stop add no empty cassette', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, v1SessionfulHandler());
  const proxy = await startDirRecorder(t, upstream.url, dir, ['--rotate-interval', '1s']);
  const texts = (): string[] =>
    cassetteFiles(dir).map((f) => JSON.stringify(readJson(f).sessions.flatMap((s) => s.messages.map((m) => m.json))));
  await runV1HttpScenario(proxy.url, async (client) => ({ add: await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }) }));
  // The period ends by itself: the answer reaches a closed cassette while the proxy runs.
  await until(() => texts().some((x) => x.includes('"text":"2"')), 'the first period');
  // Then the session's tail (its DELETE, the end of its GET stream) closes by time as well, and
  // the proxy writes into a journal that holds nothing yet.
  await until(() => onlyAnEmptyJournal(dir) !== undefined, 'the first session in closed cassettes');
  const before = cassetteFiles(dir);
  // Quiet periods: no traffic for two and a half periods after the empty journal was opened (the
  // wait is the quiet itself, a lower bound; nothing asserted depends on how long it lasted). A
  // proxy that closed empty periods would add a cassette for each.
  const quietSince = statSync(onlyAnEmptyJournal(dir)!).mtimeMs;
  await delay(Math.max(0, quietSince + 2500 - Date.now()));
  t.deepEqual(cassetteFiles(dir), before, 'quiet periods add no cassette');
  await runV1HttpScenario(proxy.url, async (client) => ({ add: await client.callTool({ name: 'add', arguments: { a: 2, b: 2 } }) }));
  await until(() => texts().some((x) => x.includes('"text":"4"')), 'the second period');
  await until(() => onlyAnEmptyJournal(dir) !== undefined, 'the second session in closed cassettes');
  // An idle stop: the journal in use holds nothing, so no cassette is added for it.
  const beforeStop = cassetteFiles(dir);
  t.true(beforeStop.length > before.length, 'the second session has cassettes of its own');
  const end = await proxy.stop();
  t.is(end.code, 0, end.stderr);
  t.deepEqual(journalsIn(dir), []);
  t.deepEqual(cassetteFiles(dir), beforeStop, 'an idle stop adds no cassette');
  for (const f of cassetteFiles(dir)) {
    const c = readJson(f);
    t.true(c.sessions.length > 0 && c.sessions.every((s) => (s.exchanges ?? []).length > 0), `${f} is not empty`);
  }
});
