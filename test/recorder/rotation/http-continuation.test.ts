/**
 * A request still waiting for its answer when a rotation has waited long enough is continued
 * into the next cassette: it is written again at the top of the next journal, as the capture
 * filter wrote it (masked), never as it crossed the proxy. MCPC_ROTATE_FORCE_AFTER_MS shortens
 * the 30 s wait. Real peers: the official v1 SDK client and server; the server's `confirm` tool
 * asks the client over the GET stream, and the client takes its time to answer.
 */
import test from 'ava';
import { setTimeout as delay } from 'node:timers/promises';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { filesHolding, PLANTED } from '../../helpers/capture.js';
import { startTappedUpstream } from '../../helpers/http-taps.js';
import { tempDir } from '../../helpers/tmp.js';
import { runV1HttpScenario } from '../../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';
import { cassetteFiles, journalsIn, readJson, startDirRecorder } from './dir-helpers.js';

test('a request continued into the next cassette by a forced rotation is repeated masked: the planted key is in no file', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, v1SessionfulHandler());
  const proxy = await startDirRecorder(t, upstream.url, dir, ['--rotate-size', '1KB'], { env: { MCPC_ROTATE_FORCE_AFTER_MS: '200' } });
  const action = `deploy with ${PLANTED.sk.text}`;
  const out = await runV1HttpScenario(proxy.url, async (client) => {
    // The answer to the server's question comes a second later: the tools/call POST waits for
    // its answer past the forced rotation, which the client's answer (a new request) sets off.
    client.setRequestHandler(ElicitRequestSchema, async () => {
      await delay(1000);
      return { action: 'accept', content: { ok: true } };
    });
    return { confirm: await client.callTool({ name: 'confirm', arguments: { action } }) };
  });
  t.deepEqual((out.confirm as { content: unknown[] }).content, [{ type: 'text', text: 'answer=accept ok=true' }]);
  const end = await proxy.stop();
  t.is(end.code, 0, end.stderr);
  t.deepEqual(journalsIn(dir), []);
  // The tools/call is in two cassettes: it ends in the first as `continued` and goes on in the next.
  const holding = cassetteFiles(dir)
    .map(readJson)
    .filter((c) => c.sessions.some((s) => s.messages.some((m) => JSON.stringify(m.json ?? null).includes('"confirm"'))));
  t.true(holding.length >= 2, `the request is in ${holding.length} cassettes`);
  const outcomes = holding[0]!.sessions.flatMap((s) => (s.exchanges ?? []).map((x) => `${x.method}:${x.outcome}`));
  t.true(outcomes.includes('POST:continued'), outcomes.join(', '));
  for (const c of holding) t.regex(JSON.stringify(c), /deploy with \[REDACTED\]/, 'the repeated request is masked');
  t.deepEqual(filesHolding(dir, [PLANTED.sk.needle]), [], 'the key is in no file the proxy wrote');
});
