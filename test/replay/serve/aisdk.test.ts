import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { exampleServer, node, node22, NODE22_HINT, root, node22Peer, node22Ready } from '../../helpers/paths.js';
import { recordArgs, waitForSessions } from '../../helpers/recording.js';
import { tempDir } from '../../helpers/tmp.js';
import { serveArgs } from './helpers.js';
import { testWhen } from '../../helpers/skip.js';

const node22Test = testWhen(node22Ready, '@ai-sdk/mcp serve tests', NODE22_HINT);

const run = promisify(execFile);
const aisdkClient = node22Peer('aisdk-client.mjs');
/** The client waits for its in-place server/discover probe's answer rather than giving up after
 * 1 s from the spawn (aisdk-client.ts): that 1 s covers the start of `record` and of the server
 * behind it, which a loaded machine exceeds, and the client then fell back to 2025-11-25 with a
 * server that speaks 2026-07-28. A legacy server still answers -32601 and gets `initialize`. */
const client = [aisdkClient, '--await-discover'];
const revisionOf = (stdout: string): string | undefined => (JSON.parse(stdout) as { protocolVersion?: string }).protocolVersion;

for (const [serverMode, revision] of [
  ['stdio', '2026-07-28'],
  ['stdio-legacy', '2025-11-25'],
] as const) {
  node22Test.serial(`@ai-sdk/mcp (Node 22) gets the live answers from serve (${revision}, in-place server/discover probe)`, async (t) => {
    const dir = tempDir(t);
    const cassette = join(dir, 'aisdk.cassette.json');
    const live = await run(node22!, [...client, node, ...recordArgs(cassette, [node, exampleServer, serverMode])], { timeout: 60_000 });
    t.is(revisionOf(live.stdout), revision, `recorded: ${live.stdout}`);
    const recorded = await waitForSessions(cassette, 1);
    t.like(recorded.sessions[0]!.protocol, { revision }, 'the cassette holds the session at the revision the server offers');
    const served = await run(node22!, [...client, node, ...serveArgs(cassette)], { timeout: 60_000 });
    t.is(served.stdout, live.stdout);
  });
}

node22Test.serial('@ai-sdk/mcp (Node 22) against serve of a cassette another client (v2 SDK) recorded', async (t) => {
  const direct = await run(node22!, [...client, node, exampleServer, 'stdio'], { timeout: 60_000 });
  t.is(revisionOf(direct.stdout), '2026-07-28', `direct: ${direct.stdout}`);
  const served = await run(node22!, [...client, node, ...serveArgs(join(root, 'cassettes', 'examples', 'example-server.cassette.json'))], {
    timeout: 60_000,
  });
  const strip = (s: string) => JSON.parse(s) as Record<string, unknown>;
  t.deepEqual(strip(served.stdout), strip(direct.stdout), 'client info and capabilities differ from the recording; matching ignores them');
});
