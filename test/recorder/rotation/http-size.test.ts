import test from 'ava';
import { tempDir } from '../../helpers/tmp.js';
import { startTappedUpstream } from '../../helpers/http-taps.js';
import { runV1HttpScenario } from '../../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';
import { cassetteFiles, journalsIn, logLine, readJson, sample, scrape, startDirRecorder, until, validateJson } from './dir-helpers.js';

test('--rotate-size with --keep-files over Streamable HTTP: a long v1 SDK session spans cassettes, the open GET stream goes on in each, the oldest are deleted', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, v1SessionfulHandler());
  const proxy = await startDirRecorder(t, upstream.url, dir, ['--rotate-size', '3KB', '--keep-files', '3', '--metrics-listen', '0']);
  // Port 0: the recorder logs the address it got ("serving metrics", before its own URL).
  await until(() => logLine(proxy.stderr(), 'serving metrics') !== undefined, 'the metrics address');
  const metricsUrl = String(logLine(proxy.stderr(), 'serving metrics')!.metrics);
  const answers: string[] = [];
  let metrics = '';
  let seen = { files: 0 };
  await runV1HttpScenario(proxy.url, async (client) => {
    for (let n = 0; n < 40; n++) {
      const r = (await client.callTool({ name: 'add', arguments: { a: n, b: 1000 } })) as { content: { text: string }[] };
      answers.push(r.content[0]!.text);
    }
    // Once every closed journal is folded (only the one being written is left), /metrics counts
    // each cassette written and each one deleted.
    await until(() => journalsIn(dir).length === 1, 'the folds');
    metrics = await scrape(metricsUrl);
    seen = { files: cassetteFiles(dir).length };
    // The elicitation goes out on the GET stream, which has been open across every rotation.
    return { confirm: await client.callTool({ name: 'confirm', arguments: { action: 'deploy' } }) };
  });
  const end = await proxy.stop();
  t.is(end.code, 0, end.stderr);
  t.deepEqual(journalsIn(dir), []);
  const stopped = logLine(end.stderr, 'recording stopped') as { cassettesRotated: number; cassettesPruned: number };
  t.true(stopped.cassettesRotated >= 5, `rotated ${stopped.cassettesRotated} times`);
  const files = cassetteFiles(dir);
  t.is(files.length, 3, '--keep-files 3');
  t.is(stopped.cassettesPruned, stopped.cassettesRotated - 3);
  const rotated = sample(metrics, 'mcp_cassette_cassettes_rotated_total{trigger="size"}') ?? 0;
  const pruned = sample(metrics, 'mcp_cassette_cassettes_pruned_total{rule="keep-files"}') ?? 0;
  t.true(rotated >= 4, `${rotated} rotations by size in /metrics`);
  t.is(rotated - pruned, seen.files, 'every cassette written is on disk or counted as pruned');
  t.true(rotated < stopped.cassettesRotated, 'the last one, written at the end, came after the scrape');
  t.is(sample(metrics, 'mcp_cassette_recording_paused'), 0);
  const cassettes = files.map(readJson);
  // The last cassettes hold the last answers; the session's exchanges are in order across them.
  const texts = cassettes.flatMap((c) => c.sessions.flatMap((s) => s.messages.map((m) => JSON.stringify(m.json))));
  t.true(
    texts.some((x) => x.includes('"text":"1039"')),
    'the last answer',
  );
  t.true(texts.some((x) => x.includes('elicitation/create')));
  const outcomes = cassettes.flatMap((c) => c.sessions.flatMap((s) => (s.exchanges ?? []).map((x) => `${x.method}:${x.outcome}`)));
  t.true(outcomes.includes('GET:continued'), 'the GET stream was open at a rotation and went on in the next cassette');
  // Every closed cassette is a valid file that validate reads.
  const report = await validateJson([dir]);
  t.is(report.summary.cassettes, 3);
  // The later parts of the session start without initialize; the validator judges them as such.
  t.deepEqual(
    report.violations.filter((v) => v.severity !== 'info'),
    [],
  );
  t.is(answers.length, 40);
});
