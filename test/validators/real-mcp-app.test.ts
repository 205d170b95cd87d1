import test, { type ExecutionContext } from 'ava';
import type { Client } from '@modelcontextprotocol/client';
import { join } from 'node:path';
import { node, root } from '../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../helpers/proc.js';
import { findings, freePort, liveBeyondOffline, recordRealHttp, recordRealStdio } from '../helpers/real-server.js';

// @modelcontextprotocol/server-basic-react 2.0.3, the MCP Apps example server (ext-apps on the v2
// SDK 2.0.0 server, bundled), negotiating 2025-11-25: one tool `get-time` whose
// `_meta.ui.resourceUri` points at `ui://get-time/mcp-app.html`, a 413 KB
// `text/html;profile=mcp-app` page of bundled React JavaScript.
const pkg = join(root, 'node_modules', '@modelcontextprotocol', 'server-basic-react', 'dist', 'index.js');
const APP = 'ui://get-time/mcp-app.html';

async function steps(t: ExecutionContext, c: Client) {
  t.deepEqual((await c.listTools()).tools.map((x) => x.name), ['get-time']);
  t.deepEqual((await c.listResources()).resources.map((r) => [r.uri, r.mimeType]), [[APP, 'text/html;profile=mcp-app']]);
  await c.listResourceTemplates();
  const time = await c.callTool({ name: 'get-time', arguments: {} });
  t.regex((time.content as { text: string }[])[0]!.text, /^\d{4}-\d\d-\d\dT/);
  // An unknown tool: the v2 SDK answers with a JSON-RPC error, as the spec says.
  await t.throwsAsync(c.callTool({ name: 'no_such_tool', arguments: {} }), { message: /no_such_tool/ });
  const page = (await c.readResource({ uri: APP })).contents[0] as { mimeType?: string; text?: string };
  t.is(page.mimeType, 'text/html;profile=mcp-app');
  t.true((page.text ?? '').length > 400_000 && page.text!.includes('<script'), 'the app page with its bundled JavaScript was read');
  await t.throwsAsync(c.readResource({ uri: 'ui://nope' }), { message: /not found/i });
}

// Each finding below is true of this server; the spec text it rests on (2025-11-25, the revision
// negotiated) is quoted beside it.
// - TOOLS-NOPARAM (info): get-time takes no parameters and declares
//   {"type":"object","properties":{}}, which accepts any object (it does take {"x":1}).
//   server/tools.mdx §Tool: "For tools with no parameters, use one of these valid approaches:
//   `{ "type": "object", "additionalProperties": false }` - **Recommended**: explicitly accepts
//   only empty objects".
const NOPARAM = 'TOOLS-NOPARAM:info @ answer to tools/list /result/tools/0/inputSchema';

test('MCP App server over stdio: exactly the true findings, live and offline', async (t) => {
  const rec = await recordRealStdio(t, [node, pkg, '--stdio'], (c) => steps(t, c));
  t.deepEqual(liveBeyondOffline(rec), [], 'live says nothing offline does not');
  // Not reported, rightly: the invisible characters and markup in the bundled JavaScript of the
  // app page (SEC-RESULT-INJECTION), and -32602 for the unknown tool (TOOLS-ERR-PROTOCOL).
  t.deepEqual(findings(rec, rec.offline), [NOPARAM]);
});

test('MCP App server over stateless Streamable HTTP: exactly the true findings, live and offline', async (t) => {
  const port = await freePort();
  // The server listens on every interface with no host option: the preload binds it to loopback.
  const server = spawnTracked(t, node, ['--require', join(root, 'test', 'servers', 'force-loopback.cjs'), pkg], { env: { ...process.env, PORT: String(port) } });
  await waitForOutput(server.stdout!, (s) => s.includes('listening'), 30_000);
  const rec = await recordRealHttp(t, `http://127.0.0.1:${port}/mcp`, (c) => steps(t, c));
  t.deepEqual(liveBeyondOffline(rec), [], 'live says nothing offline does not');
  // - SEC-LOCAL-HTTP-OPEN (info): the server on 127.0.0.1 answers every MCP request without any
  //   Authorization. basic/transports.mdx §Security Warning: "Servers **SHOULD** implement proper
  //   authentication for all connections". The server keeps no session (no Mcp-Session-Id), so
  //   each exchange is a recorded session of its own and the rule, once per session, speaks for
  //   each of the eight requests (not for the notification, nor the client's GET stream).
  const open = ['initialize', 'resources/list', `resources/read ${APP}`, 'resources/read ui://nope', 'resources/templates/list', 'tools/call get-time', 'tools/call no_such_tool', 'tools/list'];
  t.deepEqual(findings(rec, rec.offline), [...open.map((m) => `SEC-LOCAL-HTTP-OPEN:info @ ${m}`), NOPARAM]);
});
