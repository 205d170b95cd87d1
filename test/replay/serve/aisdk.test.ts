import test from 'ava';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { exampleServer, node, node22, root } from '../../helpers/paths.js';
import { recordArgs, waitForSessions } from '../../helpers/recording.js';
import { tempDir } from '../../helpers/tmp.js';
import { serveArgs } from './helpers.js';

const run = promisify(execFile);
const aisdkClient = join(root, 'dist', 'test', 'peers', 'aisdk-client.js');

for (const [serverMode, revision] of [
  ['stdio', '2026-07-28'],
  ['stdio-legacy', '2025-11-25'],
] as const) {
  test.serial(`@ai-sdk/mcp (Node 22) gets the live answers from serve (${revision}, in-place server/discover probe)`, async (t) => {
    t.true(existsSync(node22), `Node 22 is missing at ${node22}; run node test/setup/ensure-node22.mjs`);
    const dir = tempDir(t);
    const cassette = join(dir, 'aisdk.cassette.json');
    const live = await run(node22, [aisdkClient, node, ...recordArgs(cassette, [node, exampleServer, serverMode])], { timeout: 60_000 });
    await waitForSessions(cassette, 1);
    // The recording proxy's start may exceed the client's 1 s in-place probe budget on a busy
    // machine, in which case it falls back to 2025-11-25; serve must then answer the same way.
    t.log(`recorded with ${(JSON.parse(live.stdout) as { protocolVersion: string }).protocolVersion} (the server offers ${revision})`);
    const served = await run(node22, [aisdkClient, node, ...serveArgs(cassette)], { timeout: 60_000 });
    t.is(served.stdout, live.stdout);
  });
}

test.serial('@ai-sdk/mcp (Node 22) against serve of a cassette another client (v2 SDK) recorded', async (t) => {
  t.true(existsSync(node22));
  const direct = await run(node22, [aisdkClient, node, exampleServer, 'stdio'], { timeout: 60_000 });
  const served = await run(node22, [aisdkClient, node, ...serveArgs(join(root, 'cassettes', 'examples', 'example-server.cassette.json'))], {
    timeout: 60_000,
  });
  const strip = (s: string) => JSON.parse(s) as Record<string, unknown>;
  t.deepEqual(strip(served.stdout), strip(direct.stdout), 'client info and capabilities differ from the recording; matching ignores them');
});
