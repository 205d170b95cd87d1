/**
 * firecrawl-mcp 3.26.0, a FastMCP-TS (fastmcp 4.3.2) server, over Streamable HTTP: it answers the
 * client's GET (the listen stream) `405 Method Not Allowed` with a bare text body and no
 * Content-Type, which the transports page allows ("the server MUST either return Content-Type:
 * text/event-stream ... or else return HTTP 405 Method Not Allowed"). HTTP-REQ-CT is about the
 * answer to a POSTed request, so that GET is no finding (issue 31); the POSTs' answers are still
 * judged. Started with a dummy API key: nothing here calls the Firecrawl API.
 */
import { node22, NODE22_HINT, node22Peer, node22Ready } from '../helpers/paths.js';
import { spawnTracked } from '../helpers/proc.js';
import { testWhen } from '../helpers/skip.js';
import { drain, findings, forceLoopback, loopbackPort, recordRealHttp } from '../helpers/real-server.js';

// firecrawl-mcp wants Node 22 (its engines range): it runs with the Node 22 peers.
const node22Test = testWhen(node22Ready, 'firecrawl-mcp test', NODE22_HINT);
const firecrawl = node22Peer('node_modules', 'firecrawl-mcp', 'dist', 'index.js');

node22Test('FastMCP-TS (firecrawl-mcp 3.26.0) over Streamable HTTP: its bare 405 to the GET is no HTTP-REQ-CT finding', async (t) => {
  const server = spawnTracked(t, node22!, ['--require', forceLoopback, firecrawl], {
    env: { ...process.env, HTTP_STREAMABLE_SERVER: 'true', HOST: '127.0.0.1', PORT: '0', FIRECRAWL_API_KEY: 'fc-test-not-a-key' },
  });
  const port = await loopbackPort(server);
  drain(server);
  const rec = await recordRealHttp(t, `http://127.0.0.1:${port}/mcp`, async (c) => {
    t.true((await c.listTools()).tools.some((x) => x.name.startsWith('firecrawl_')));
  });
  const session = rec.cassette.sessions.flatMap((s) => s.exchanges ?? []);
  const refused = session.filter((x) => x.method === 'GET' && x.status === 405);
  t.true(
    refused.length > 0,
    `the client's GET was answered 405: ${JSON.stringify(session.map((x) => [x.method, x.status, x.contentType]))}`,
  );
  t.true(
    refused.every((x) => !(x.contentType ?? '').startsWith('text/event-stream') && !(x.contentType ?? '').startsWith('application/json')),
    'with no MCP Content-Type',
  );
  const found = findings(rec, rec.offline);
  t.log(found.join('\n'));
  t.false(
    found.some((f) => f.startsWith('HTTP-REQ-CT')),
    found.join('\n'),
  );
  t.false(
    findings(rec, rec.live).some((f) => f.startsWith('HTTP-REQ-CT')),
    'live either',
  );
});
