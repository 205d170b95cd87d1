import test from 'ava';
import { validateSession } from '../../validators/engine.js';
import { RULES } from '../../validators/rules/index.js';
import { everythingServer, node } from '../helpers/paths.js';
import { recordSdkSession } from '../helpers/sdk-recording.js';

/**
 * Real servers negotiate the older revisions when a client offers them (mcp-go servers
 * counter-offer 2025-03-26; SDK servers echo 2025-03-26 and 2024-11-05): the real v1 SDK client,
 * offering the older revision, and a real server, through the recording proxy. (Offline verdicts
 * only: the live verdicts of a stdio session are cut short when the client's SIGTERM comes before
 * a loaded machine has judged the last frames, by design of the recorder.)
 */
async function recordWithOffer(
  t: Parameters<typeof recordSdkSession>[0],
  offer: string,
  server: string[],
  steps: Parameters<typeof recordSdkSession>[2],
) {
  const [session] = (await recordSdkSession(t, server, steps, { offer })).cassette.sessions;
  return { session: session!, offline: validateSession(session!, { rules: RULES }) };
}

const at = (vs: { rule: string; seq: number; path: string; spec: string }[]) =>
  vs.map((v) => `${v.rule} #${v.seq} ${v.path} ${v.spec}`).sort();

for (const revision of ['2025-03-26', '2024-11-05']) {
  test(`server-everything at ${revision}: structure judged by ${revision}, structured output not judged, resource links found`, async (t) => {
    const { session, offline } = await recordWithOffer(t, revision, [node, everythingServer], async (c) => {
      t.is(c.getServerVersion()?.name, 'mcp-servers/everything');
      await c.listTools();
      await c.callTool({ name: 'get-structured-content', arguments: { location: 'New York' } });
      await c.callTool({ name: 'get-resource-links', arguments: { count: 2 } });
    });
    type Json = { id?: unknown; method?: string; params?: { name?: string }; result?: Record<string, unknown> } | undefined;
    const json = (m: (typeof session.messages)[number]) => m.json as Json;
    const initialized = session.messages.find((m) => m.direction === 'server-to-client' && json(m)?.result?.protocolVersion !== undefined);
    t.is(json(initialized!)?.result?.protocolVersion, revision, 'the server negotiated the offered revision');
    /** The answer to the call of one tool. */
    const answerTo = (tool: string) => {
      const call = session.messages.find((m) => json(m)?.method === 'tools/call' && json(m)?.params?.name === tool)!;
      return session.messages.find((m) => m.direction === 'server-to-client' && json(m)?.id === json(call)?.id)!;
    };
    // The server sends resource_link blocks (content that came with 2025-06-18) in this older
    // session: a true finding, one per block, linked to this revision's tools page.
    const links = answerTo('get-resource-links').seq;
    t.deepEqual(
      at(offline),
      [1, 2].map(
        (i) =>
          `TOOLS-CALL-SHAPE #${links} /result/content/${i}/type https://modelcontextprotocol.io/specification/${revision}/server/tools`,
      ),
    );
    // Its structured output is real (an outputSchema and structuredContent on the wire), and not
    // judged: structured output came with 2025-06-18.
    t.truthy(answerTo('get-structured-content').json && json(answerTo('get-structured-content'))?.result?.structuredContent);
    t.false(offline.some((v) => v.rule === 'TOOLS-OUTPUT-CONFORM' || v.rule === 'TOOLS-STRUCT-MIRROR'));
  });
}
