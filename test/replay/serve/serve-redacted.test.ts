import test from 'ava';
import { join } from 'node:path';
import { PLANTED, recordStdio } from '../../helpers/capture.js';
import { node } from '../../helpers/paths.js';
import { spawnTracked } from '../../helpers/proc.js';
import { PipeTransport, v2Client } from '../../helpers/real-server.js';
import { tempDir } from '../../helpers/tmp.js';
import { serveArgs } from './helpers.js';

/**
 * A value the recorder masked (`[REDACTED]`: a credential shape, `--redact-path`) matches any
 * live value in `serve`: a client sending another token at that place gets the recorded answer,
 * while a request that differs elsewhere is still unmatched.
 */
test('serve: masked values in a recorded request match any live value there, and nothing else', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'masked.cassette.json');
  const r = await recordStdio(t, path, ['--redact-path', '/params/arguments/note'], async (client) => {
    await client.callTool({ name: 'echo', arguments: { text: `value ${PLANTED.bearer.text} end`, note: 'recorded note' } });
  });
  t.is(r.code, 0, r.stderr);
  const serve = spawnTracked(t, node, serveArgs(path));
  serve.stderr!.on('data', () => {});
  const client = v2Client();
  await client.connect(new PipeTransport(serve));
  const answer = await client.callTool({
    name: 'echo',
    arguments: { text: 'value Bearer another-live-token-42 end', note: 'a live note' },
  });
  t.deepEqual(answer.content, [{ type: 'text', text: 'you said: value Bearer [REDACTED] end' }], 'the recorded answer');
  const other = await client
    .callTool({ name: 'echo', arguments: { text: 'another value Bearer another-live-token-42 end', note: 'x' } })
    .then(
      () => undefined,
      (err: { code?: number }) => err.code,
    );
  t.is(other, -32099, 'text outside the mask must still match');
  await client.close();
});
