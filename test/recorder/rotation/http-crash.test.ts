import test from 'ava';
import { tempDir } from '../../helpers/tmp.js';
import { startTappedUpstream } from '../../helpers/http-taps.js';
import { runV1HttpScenario } from '../../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';
import { cassetteFiles, cli, collect, journalsIn, node, readJson, spawnTracked, startDirRecorder, validateJson } from './dir-helpers.js';

test('SIGKILL mid-rotation (a closed journal not yet folded, the next one open): recover on the directory restores every answer the client saw', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, v1SessionfulHandler());
  const proxy = await startDirRecorder(t, upstream.url, dir, ['--rotate-size', '2KB']);
  const answers: string[] = [];
  let killedAt: string[] | undefined;
  await runV1HttpScenario(proxy.url, async (client) => {
    for (let n = 0; n < 200 && !killedAt; n++) {
      const r = (await client.callTool({ name: 'add', arguments: { a: n, b: 5000 } })) as { content: { text: string }[] };
      answers.push(r.content[0]!.text);
      // Two journals: one closed and waiting for its fold, the next one being written.
      const journals = journalsIn(dir);
      if (answers.length >= 5 && journals.length >= 2) {
        proxy.child.kill('SIGKILL');
        killedAt = journals;
      }
    }
    return {};
  }).catch(() => undefined); // the client's session end meets a dead proxy
  await proxy.finished;
  t.truthy(killedAt, 'the proxy was killed between closing a journal and folding it');
  t.true(journalsIn(dir).length >= 2, 'the journals are still there');

  const recovered = await collect(spawnTracked(t, node, [cli, 'recover', dir]));
  t.is(recovered.code, 0, recovered.stderr);
  t.regex(recovered.stdout.toString(), /recovered session/);
  t.deepEqual(journalsIn(dir), [], 'every journal folded');
  const texts = new Set(
    cassetteFiles(dir).flatMap((f) =>
      readJson(f).sessions.flatMap((s) =>
        s.messages.map((m) => (m.json as { result?: { content?: { text?: string }[] } }).result?.content?.[0]?.text),
      ),
    ),
  );
  const missing = answers.filter((a) => !texts.has(a));
  t.deepEqual(missing, [], 'every answer the client got is in a cassette');
  t.true(answers.length >= 5);
  const report = await validateJson([dir]);
  t.is(report.summary.cassettes, cassetteFiles(dir).length);
  // Recovering again finds nothing more and changes nothing.
  const again = await collect(spawnTracked(t, node, [cli, 'recover', dir]));
  t.regex(again.stdout.toString(), /nothing to recover/);
});
