import test, { type ExecutionContext } from 'ava';
import { writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/client';
import { join } from 'node:path';
import { node, root } from '../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../helpers/proc.js';
import {
  drain,
  findings,
  forceLoopback,
  liveBeyondOffline,
  loopbackPort,
  recordRealHttp,
  recordRealStdio,
  withoutRules,
  type RealRecording,
} from '../helpers/real-server.js';
import { tempDir } from '../helpers/tmp.js';

// @modelcontextprotocol/server-basic-react 2.0.3, the MCP Apps example server (ext-apps on the v2
// SDK 2.0.0 server, bundled), negotiating 2025-11-25: one tool `get-time` whose
// `_meta.ui.resourceUri` points at `ui://get-time/mcp-app.html`, a 413 KB
// `text/html;profile=mcp-app` page of bundled React JavaScript.
const pkg = join(root, 'node_modules', '@modelcontextprotocol', 'server-basic-react', 'dist', 'index.js');
const APP = 'ui://get-time/mcp-app.html';

async function steps(t: ExecutionContext, c: Client) {
  t.deepEqual(
    (await c.listTools()).tools.map((x) => x.name),
    ['get-time'],
  );
  t.deepEqual(
    (await c.listResources()).resources.map((r) => [r.uri, r.mimeType]),
    [[APP, 'text/html;profile=mcp-app']],
  );
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
// - RES-NOTFOUND-LEGACY-32002 (warning): ui://nope does not exist and is answered with an error
//   saying so under another code than -32002. 2025-11-25 server/resources.mdx §Error Handling:
//   "Servers SHOULD return standard JSON-RPC errors for common failure cases: Resource not found:
//   `-32002`" (2026-07-28 moved to -32602; this session speaks 2025-11-25).
const NOTFOUND = 'RES-NOTFOUND-LEGACY-32002:warning @ answer to resources/read ui://nope /error/code';

test('MCP App server over stdio: exactly the true findings, live and offline', async (t) => {
  const rec = await recordRealStdio(t, [node, pkg, '--stdio'], (c) => steps(t, c));
  t.deepEqual(liveBeyondOffline(rec), [], 'live says nothing offline does not');
  // Not reported, rightly: the invisible characters and markup in the bundled JavaScript of the
  // app page (SEC-RESULT-INJECTION), and -32602 for the unknown tool (TOOLS-ERR-PROTOCOL).
  t.deepEqual(findings(rec, rec.offline), [NOTFOUND, NOPARAM]);
});

test('MCP App server over stateless Streamable HTTP: exactly the true findings, live and offline', async (t) => {
  // The server listens on every interface with no host option: the preload binds it to loopback,
  // and says on stderr which port it got for PORT=0.
  const server = spawnTracked(t, node, ['--require', forceLoopback, pkg], { env: { ...process.env, PORT: '0' } });
  const port = await loopbackPort(server);
  await waitForOutput(server.stdout!, (s) => s.includes('listening'), 30_000);
  drain(server);
  const rec = await recordRealHttp(t, `http://127.0.0.1:${port}/mcp`, (c) => steps(t, c));
  t.deepEqual(liveBeyondOffline(rec), [], 'live says nothing offline does not');
  // - SEC-LOCAL-HTTP-OPEN (info): the server on 127.0.0.1 answers every MCP request without any
  //   Authorization. basic/transports.mdx §Security Warning: "Servers **SHOULD** implement proper
  //   authentication for all connections". The server keeps no session (no Mcp-Session-Id), so
  //   each exchange is a recorded session of its own; the finding is about the server, so it is
  //   said once for the server (its first answered request), not again for each of the eight.
  t.deepEqual(findings(rec, rec.offline), [NOTFOUND, 'SEC-LOCAL-HTTP-OPEN:info @ initialize', NOPARAM]);
});

// @modelcontextprotocol/server-pdf 2.0.4, the MCP Apps PDF viewer (same stack): its app page
// `ui://pdf-viewer/mcp-app.html` is 4.3 MB of bundled pdf.js, whose code holds invisible and
// bidirectional characters (33 of them, in tables and regular expressions), none meant for a model.
const pdfServer = join(root, 'node_modules', '@modelcontextprotocol', 'server-pdf', 'dist', 'index.js');
const VIEWER = 'ui://pdf-viewer/mcp-app.html';

/** The smallest PDF that pdf.js reads: one page, one line of text. */
function tinyPdf(path: string): void {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >>',
    '<< /Length 0 >>\nstream\n\nendstream',
  ];
  let out = '%PDF-1.4\n';
  const offsets = objects.map((o, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  writeFileSync(path, out);
}

let pdfRecording: Promise<RealRecording> | undefined;

// Serial: the known-false-positive test below reads this recording (one server start).
test.serial('MCP App PDF server over stdio: exactly the true findings, live and offline', async (t) => {
  const pdf = join(tempDir(t), 'hello.pdf');
  tinyPdf(pdf);
  const rec = await (pdfRecording = recordRealStdio(t, [node, pdfServer, '--stdio', pdf], async (c) => {
    t.true((await c.listTools()).tools.some((x) => x.name === 'list_pdfs'));
    t.deepEqual(
      (await c.listResources()).resources.map((r) => [r.uri, r.mimeType]),
      [[VIEWER, 'text/html;profile=mcp-app']],
    );
    const list = await c.callTool({ name: 'list_pdfs', arguments: {} });
    t.deepEqual((list.structuredContent as { localFiles: string[] }).localFiles, [`file://${pdf}`]);
    await t.throwsAsync(c.callTool({ name: 'no_such_tool', arguments: {} }), { message: /no_such_tool/ });
    const page = (await c.readResource({ uri: VIEWER })).contents[0] as { mimeType?: string; text?: string };
    t.true(page.mimeType === 'text/html;profile=mcp-app' && (page.text ?? '').length > 4_000_000);
  }));
  t.deepEqual(liveBeyondOffline(rec), [], 'live says nothing offline does not');
  t.deepEqual(withoutRules(findings(rec, rec.offline), ['SEC-RESULT-INJECTION']), [
    // - TOOLS-NOPARAM (info): list_pdfs takes no parameters and declares a schema that accepts
    //   any object. server/tools.mdx §Tool: "`{ "type": "object", "additionalProperties": false }`
    //   - **Recommended**: explicitly accepts only empty objects".
    'TOOLS-NOPARAM:info @ answer to tools/list /result/tools/0/inputSchema',
    // - TOOLS-STRUCT-MIRROR (warning): list_pdfs returns structuredContent
    //   ({"localFiles":[…],"allowedDirectories":[],"truncated":false}) and, as its only text,
    //   prose ("Available PDFs: …"), not the JSON. server/tools.mdx §Structured Content: "For
    //   backwards compatibility, a tool that returns structured content SHOULD also return the
    //   serialized JSON in a TextContent block."
    'TOOLS-STRUCT-MIRROR:warning @ answer to tools/call list_pdfs /result/content',
  ]);
});

// SEC-RESULT-INJECTION fired once, on the viewer page's bundled JavaScript (/result/contents/0/
// text): code and markup for the host's iframe, not text meant for the model. The rule judges
// resource text by its content type now.
test.serial("MCP App PDF server: no SEC-RESULT-INJECTION on the invisible characters in its app page's JavaScript", async (t) => {
  const rec = await pdfRecording;
  if (!rec) return t.fail('the recording of the test above is missing');
  const found = findings(
    rec,
    rec.offline.filter((v) => v.rule === 'SEC-RESULT-INJECTION'),
  );
  t.true(
    found.every((f) => f === `SEC-RESULT-INJECTION:warning @ answer to resources/read ${VIEWER} /result/contents/0/text`),
    'only ever on the app page',
  );
  t.deepEqual(found, []);
});
