/**
 * COMPL-ERR judged passively (issue 31): a completion for a prompt or resource the server is known
 * not to have should get -32602 (server/utilities/completion.mdx, Error Handling: "Invalid prompt
 * name: -32602"). FastMCP-TS (fastmcp 4.3.2, the framework of firecrawl-mcp 3.26.0) answers -32603
 * instead: its completion handler throws a plain error ("Unknown prompt", "Unknown resource") and
 * the v1 SDK it runs on turns that into Internal error. Recorded through `record` with the official
 * v2 SDK client; `validate` must report exactly these findings, and live nothing it does not.
 * (The official SDKs' McpServer, v1 and v2, and server-everything 2026.8.31 answer -32602; older
 * server-everything and tmcp answer with a result, which is no error code to judge.)
 */
import type { Client } from '@modelcontextprotocol/client';
import { join } from 'node:path';
import { NODE22_HINT, node22, node22Peer, node22Ready, root } from '../helpers/paths.js';
import { findings, liveBeyondOffline, recordRealStdio } from '../helpers/real-server.js';
import { testWhen } from '../helpers/skip.js';

// firecrawl-mcp wants Node 22 (its engines range): it and its FastMCP run with the Node 22 peers.
const test = testWhen(node22Ready, 'FastMCP and firecrawl-mcp completion tests', NODE22_HINT);
const firecrawl = node22Peer('node_modules', 'firecrawl-mcp', 'dist', 'index.js');
const fastmcp = join(root, 'dist', 'test', 'servers', 'fastmcp-server.js');

/** The JSON-RPC error code a completion is refused with (the client throws it). */
async function refusal(c: Client, ref: Parameters<Client['complete']>[0]['ref'], argument: string): Promise<unknown> {
  try {
    await c.complete({ ref, argument: { name: argument, value: 'A' } });
    return 'a result';
  } catch (err) {
    return (err as { code?: unknown }).code;
  }
}

test('FastMCP-TS: -32603 for a prompt and a resource template its complete lists do not name is COMPL-ERR; a listed one completes', async (t) => {
  const rec = await recordRealStdio(t, [node22!, fastmcp], async (c) => {
    // The client reads every page; the completions are asked with nothing in between that could change the lists.
    const listed = {
      prompts: (await c.listPrompts()).prompts.map((p) => p.name),
      templates: (await c.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate),
      resources: (await c.listResources()).resources.map((r) => r.uri),
    };
    t.deepEqual(listed, { prompts: ['greet'], templates: ['greeting://{who}'], resources: [] });
    t.is(await refusal(c, { type: 'ref/prompt', name: 'no-such-prompt' }, 'who'), -32603);
    t.is(await refusal(c, { type: 'ref/resource', uri: 'nothing://{who}' }, 'who'), -32603);
    t.deepEqual(
      (await c.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } })).completion.values,
      ['Ada', 'Alan'],
    );
  });
  const found = findings(rec, rec.offline);
  t.deepEqual(found, [
    // "Invalid prompt name: -32602": no-such-prompt is on no page of prompts/list.
    'COMPL-ERR:warning @ answer to completion/complete /error/code',
    // The same for a URI that is no expansion of a listed template and no listed resource.
    'COMPL-ERR:warning @ answer to completion/complete /error/code',
  ]);
  const messages = rec.offline.map((v) => v.message);
  t.true(
    messages.some((m) => m.includes('prompt "no-such-prompt", which the complete prompts/list answer')),
    messages.join('\n'),
  );
  t.true(
    messages.some((m) => m.includes('resource "nothing://{who}", which matches no template')),
    messages.join('\n'),
  );
  t.deepEqual(liveBeyondOffline(rec), []);
});

test('firecrawl-mcp 3.26.0: declares completions but no prompts or resources, and answers -32603 for any of them: COMPL-ERR', async (t) => {
  const rec = await recordRealStdio(
    t,
    [node22!, firecrawl],
    async (c) => {
      // The client concludes from the capabilities that there are no prompts and sends nothing.
      t.deepEqual((await c.listPrompts()).prompts, []);
      t.is(await refusal(c, { type: 'ref/prompt', name: 'summarize' }, 'url'), -32603);
      t.is(await refusal(c, { type: 'ref/resource', uri: 'firecrawl://{id}' }, 'id'), -32603);
    },
    // A dummy key: nothing here calls the Firecrawl API.
    { env: { ...(process.env as Record<string, string>), FIRECRAWL_API_KEY: 'fc-test-not-a-key' } },
  );
  const sent = rec.cassette.sessions.flatMap((s) => s.messages).map((m) => (m.json as { method?: string } | undefined)?.method);
  t.false(sent.includes('prompts/list'), 'no prompts/list went to the server');
  t.deepEqual(findings(rec, rec.offline), [
    // A server without the prompts capability has no prompts, nor without resources any resource.
    'COMPL-ERR:warning @ answer to completion/complete /error/code',
    'COMPL-ERR:warning @ answer to completion/complete /error/code',
  ]);
  t.deepEqual(
    rec.offline.map((v) => v.message.split(' was answered')[0]),
    [
      'completion/complete for prompt "summarize" of a server that declares no prompts',
      'completion/complete for resource "firecrawl://{id}" of a server that declares no resources',
    ],
  );
  t.deepEqual(liveBeyondOffline(rec), []);
});
