#!/usr/bin/env node
/**
 * A small MCP server (official v2 SDK, both eras) for replay tests. Its answers carry fresh UUIDs,
 * timestamps and pagination cursors on every run. Served over stdio by default, or over
 * Streamable HTTP on 127.0.0.1 with `--http` (prints its URL on the first stdout line).
 *
 * `--regression <name>` (or REPLAY_REGRESSION) switches on one seeded change, so a cassette
 * recorded from the plain server can be replayed against each:
 *   tool-removed, new-required-input, enum-shrunk, description-changed, is-error,
 *   error-code-changed, content-changed, readonly-lost, tool-added, crash, hang,
 *   progress-changed (count sends one progress step fewer), log-changed (count logs other text),
 *   server-request (search asks the client for its roots first: a 2025 server→client request),
 *   roots-twice (search asks for the roots, then once more: the same request twice),
 *   http-status (HTTP only: tools/call search is answered 503),
 *   prompt-removed (no greet prompt), resource-moved (example://notes is listed and read as
 *   example://archive/notes, in the same place of the paginated list), input-closed (search refuses
 *   unknown arguments: additionalProperties false), output-enum-widened (search's output mode may
 *   also be "exhaustive"), title-changed (search has another title), mime-type-dropped (reading
 *   example://readme no longer says its mimeType), content-added (search answers with a second
 *   content block), logging-dropped (no logging capability, count logs nothing),
 *   capability-added (declares completions), annotation-added (search gains openWorldHint: false),
 *   error-message-changed (reading example://locked fails with other wording), error-fixed
 *   (example://locked becomes readable), stdout-noise (a non-JSON line on stdout at start),
 *   flag-narrowed (pin lists its `pinned` argument as boolean only, and still accepts a string),
 *   flag-refused (pin's `pinned` is boolean only, and a string is refused)
 * `--flag-tool` (implied by the flag-* seeds) adds the tool `pin`, whose `pinned` argument is
 * boolean | string (`anyOf`), so a recording can call it with a string.
 * Over HTTP every answer carries a fresh `Set-Cookie` and `X-Upstream-Token` (secrets a cassette
 * must not keep).
 * `--paginate-tools` pages tools/list two tools a page (resources/list always pages, one a page,
 * or `--resource-page-size <n>` a page).
 * `--protocol-versions 2025-06-18,2026-07-28` limits the revisions it speaks (an older server).
 * `--legacy reject` refuses the 2025 era the way the SDK does (initialize gets -32022);
 * `--legacy missing` answers initialize with -32601, as a server that dropped the handshake would.
 * Any other argument (a test's `--marker=…`, `--api-key=…`) is ignored.
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer, ProtocolError, acceptedContent, inputRequired, type Transport } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i !== -1 ? argv[i + 1] : undefined;
};
const regression = option('--regression') ?? process.env.REPLAY_REGRESSION ?? 'none';
const legacy = option('--legacy') ?? 'serve';

/** `--protocol-versions a,b`: the revisions it speaks (the SDK counter-offers the first 2025-era
 * one to an `initialize` asking for another). */
const protocolVersions = option('--protocol-versions')?.split(',');

/** Live cursors of this process: random per run, so a replay must follow the live ones. */
const cursors = new Map<string, number>();
/** `--resource-page-size <n>`: resources a page of resources/list (default 1: three pages). */
const PAGE_SIZE = Number(option('--resource-page-size') ?? 1);
/** `--search-delay <ms>`: search takes this long to answer (a slow tool). */
const SEARCH_DELAY = Number(option('--search-delay') ?? 0);
/** `--paginate-tools`: tools/list too is paginated (two tools a page). */
const paginateTools = argv.includes('--paginate-tools');

/** Lists the server's tools two a page, with random cursors. The tools are registered as usual
 * (tools/call is the SDK's); only the listing is ours, built with zod's JSON Schema output. */
function paginateToolList(server: McpServer): void {
  const listed: Array<Record<string, unknown>> = [];
  const register = server.registerTool.bind(server);
  server.registerTool = ((
    name: string,
    config: { title?: string; description?: string; inputSchema?: z.ZodType; annotations?: object },
    callback: never,
  ) => {
    listed.push({
      name,
      ...(config.title ? { title: config.title } : {}),
      ...(config.description ? { description: config.description } : {}),
      inputSchema: config.inputSchema ? z.toJSONSchema(config.inputSchema) : { type: 'object' },
      ...(config.annotations ? { annotations: config.annotations } : {}),
    });
    const registered = (register as (...a: unknown[]) => ReturnType<McpServer['registerTool']>)(name, config, callback);
    server.server.setRequestHandler('tools/list', async (request) => {
      const cursor = request.params?.cursor;
      const offset = cursor === undefined ? 0 : cursors.get(cursor);
      if (offset === undefined) throw new ProtocolError(-32602, `unknown cursor ${String(cursor)}`);
      const next = offset + 2;
      if (next >= listed.length) return { tools: listed.slice(offset) as never };
      const nextCursor = randomBytes(9).toString('base64url');
      cursors.set(nextCursor, next);
      return { tools: listed.slice(offset, next) as never, nextCursor };
    });
    return registered;
  }) as McpServer['registerTool'];
}

/**
 * `schema` as it validates, listed in tools/list as `shape` says: a server whose declared input
 * schema is narrower than what its handler accepts (the JSON Schema the SDK lists comes from the
 * Standard Schema's `jsonSchema`, validation from its `validate`).
 */
function listedAs<T extends z.ZodType>(schema: T, shape: z.ZodRawShape): T {
  const listed = z.object(shape)['~standard'];
  const out = Object.create(schema) as T;
  Object.defineProperty(out, '~standard', { value: { ...schema['~standard'], jsonSchema: listed.jsonSchema } });
  return out;
}

function createServer(): McpServer {
  const server = new McpServer(
    { name: 'replay-target', version: `1.0.${Math.floor(Math.random() * 1000)}` },
    {
      capabilities: {
        tools: {},
        resources: {},
        prompts: {},
        ...(regression === 'logging-dropped' ? {} : { logging: {} }),
        ...(regression === 'capability-added' ? { completions: {} } : {}),
      },
      ...(protocolVersions ? { supportedProtocolVersions: protocolVersions } : {}),
    },
  );
  if (paginateTools) paginateToolList(server);
  const searchInput = {
    query: z.string().describe('What to look for'),
    mode: z.enum(regression === 'enum-shrunk' ? ['fast'] : ['fast', 'deep']).optional(),
    ...(regression === 'new-required-input' ? { limit: z.number().int() } : {}),
  };
  const outputModes = regression === 'output-enum-widened' ? ['fast', 'deep', 'exhaustive'] : ['fast', 'deep'];
  server.registerTool(
    'search',
    {
      title: regression === 'title-changed' ? 'Catalogue search' : 'Search',
      description: regression === 'description-changed' ? 'Searches the whole catalogue, slowly' : 'Searches the catalogue',
      inputSchema: regression === 'input-closed' ? z.strictObject(searchInput) : z.object(searchInput),
      outputSchema: z.object({ hits: z.number(), mode: z.enum(outputModes) }),
      annotations: { readOnlyHint: regression !== 'readonly-lost', ...(regression === 'annotation-added' ? { openWorldHint: false } : {}) },
    },
    async ({ query, mode }, ctx) => {
      if (regression === 'crash') process.exit(3);
      if (regression === 'hang') await new Promise(() => {});
      if (SEARCH_DELAY) await new Promise((r) => setTimeout(r, SEARCH_DELAY));
      if (regression === 'is-error') return { content: [{ type: 'text', text: 'search backend is down' }], isError: true };
      if ((regression === 'server-request' || regression === 'roots-twice') && !ctx.mcpReq.inputResponses?.roots) {
        // On 2025 the SDK sends this as a roots/list request to the client; on 2026-07-28 it is an
        // input_required result.
        return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
      }
      // The same question again, as a server whose roots cache was not filled yet asks twice.
      if (regression === 'roots-twice' && !ctx.mcpReq.inputResponses?.rootsAgain)
        return inputRequired({ inputRequests: { rootsAgain: inputRequired.listRoots() } });
      const hits = regression === 'content-changed' ? 4 : 3;
      const content = [{ type: 'text' as const, text: `${hits} hits for ${query}` }];
      if (regression === 'content-added') content.push({ type: 'text', text: 'results are cached for an hour' });
      // content-added also answers with a field the recording did not have (a compatible addition).
      return { content, structuredContent: { hits, mode: mode ?? 'fast' }, ...(regression === 'content-added' ? { cachedFor: 3600 } : {}) };
    },
  );
  if (regression !== 'tool-removed') {
    server.registerTool(
      'stamp',
      {
        description: 'Returns a fresh id and the current time',
        inputSchema: z.object({}),
        outputSchema: z.object({ id: z.string(), at: z.string(), createdAtMs: z.number() }),
      },
      async () => {
        const id = randomUUID();
        const at = new Date().toISOString();
        return { content: [{ type: 'text', text: `stamp ${id} at ${at}` }], structuredContent: { id, at, createdAtMs: Date.now() } };
      },
    );
  }
  server.registerTool(
    'confirm_action',
    {
      description: 'Asks the user to confirm (MRTR input_required on 2026-07-28, elicitation/create on 2025)',
      inputSchema: z.object({ action: z.string() }),
    },
    async ({ action }, ctx) => {
      const got = acceptedContent<{ ok: boolean }>(ctx.mcpReq.inputResponses, 'confirm');
      if (!got) {
        return inputRequired({
          requestState: `state-${randomUUID()}`,
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Really ${action}?`,
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
            }),
          },
        });
      }
      return { content: [{ type: 'text', text: `confirmed=${String(got.ok)} action=${action}` }] };
    },
  );
  server.registerTool(
    'count',
    {
      description: 'Counts to n: a progress notification per step (when asked) and a log message per step',
      inputSchema: z.object({ n: z.number().int().min(1).max(20) }),
    },
    async ({ n }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      const steps = regression === 'progress-changed' ? n - 1 : n;
      for (let i = 1; i <= n; i++) {
        if (token !== undefined && i <= steps) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
        }
        if (regression !== 'logging-dropped')
          await ctx.mcpReq.log('info', regression === 'log-changed' ? `counted ${i}/${n}` : `step ${i} of ${n}`);
      }
      return { content: [{ type: 'text', text: `counted to ${n}` }] };
    },
  );
  if (argv.includes('--flag-tool') || regression.startsWith('flag-')) {
    const item = z.string();
    const wide = z.object({ item, pinned: z.union([z.boolean(), z.string()]) });
    server.registerTool(
      'pin',
      {
        description: 'Pins an item (pinned: true, false, or a word such as "yes")',
        inputSchema:
          regression === 'flag-refused'
            ? z.object({ item, pinned: z.boolean() })
            : regression === 'flag-narrowed'
              ? listedAs(wide, { item, pinned: z.boolean() })
              : wide,
      },
      async ({ item, pinned }: { item: string; pinned: boolean | string }) => ({
        content: [{ type: 'text' as const, text: `${item}: pinned=${String(pinned)}` }],
      }),
    );
  }
  if (regression === 'tool-added') {
    server.registerTool(
      'export',
      { description: 'Exports the catalogue', inputSchema: z.object({ format: z.string().optional() }) },
      async () => ({ content: [{ type: 'text', text: 'exported' }] }),
    );
  }
  server.registerResource('readme', 'example://readme', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, ...(regression === 'mime-type-dropped' ? {} : { mimeType: 'text/plain' }), text: 'replay target readme' }],
  }));
  server.registerResource('locked', 'example://locked', { mimeType: 'text/plain' }, async (uri) => {
    if (regression === 'error-code-changed') throw new ProtocolError(-32603, 'internal failure reading example://locked');
    if (regression === 'error-message-changed') throw new ProtocolError(-32602, 'example://locked: permission denied');
    if (regression === 'error-fixed') return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'unlocked' }] };
    throw new ProtocolError(-32602, 'example://locked is not readable');
  });
  const notes = regression === 'resource-moved' ? 'example://archive/notes' : 'example://notes';
  server.registerResource('notes', notes, { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'notes' }],
  }));
  // resources/list is paginated, one resource a page, with cursors that are random per process:
  // a replay passes only if it sends the cursor the live server just returned.
  const resources = [
    { uri: 'example://readme', name: 'readme', mimeType: 'text/plain' },
    { uri: 'example://locked', name: 'locked', mimeType: 'text/plain' },
    { uri: notes, name: 'notes', mimeType: 'text/plain' },
  ];
  server.server.setRequestHandler('resources/list', async (request) => {
    const cursor = request.params?.cursor;
    let offset = 0;
    if (cursor !== undefined) {
      const known = cursors.get(cursor);
      if (known === undefined) throw new ProtocolError(-32602, `unknown cursor ${cursor}`);
      offset = known;
    }
    const page = resources.slice(offset, offset + PAGE_SIZE);
    const next = offset + PAGE_SIZE;
    if (next >= resources.length) return { resources: page };
    const nextCursor = randomBytes(9).toString('base64url');
    cursors.set(nextCursor, next);
    return { resources: page, nextCursor };
  });
  if (regression !== 'prompt-removed') {
    server.registerPrompt('greet', { description: 'Greets someone', argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Say hi to ${name}` } }],
    }));
  }
  return server;
}

/** A stdio transport that answers `initialize` with -32601 itself: a server without the 2025
 * handshake. Delegates everything else to the SDK's stdio transport. */
class NoHandshakeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: Transport['onerror'];
  onclose?: Transport['onclose'];
  readonly #inner = new StdioServerTransport();

  async start(): Promise<void> {
    this.#inner.onmessage = (message) => {
      const m = message as { method?: string; id?: string | number };
      if (m.method === 'initialize' && m.id !== undefined) {
        void this.#inner.send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found: initialize' } });
        return;
      }
      this.onmessage?.(message);
    };
    this.#inner.onerror = (err) => this.onerror?.(err);
    this.#inner.onclose = () => this.onclose?.();
    await this.#inner.start();
  }

  send(message: Parameters<Transport['send']>[0]): Promise<void> {
    return this.#inner.send(message);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

// A stray debug line, the way a server that logs to stdout breaks the stdio framing.
if (regression === 'stdout-noise') process.stdout.write('replay-target starting\n');

if (argv.includes('--http')) {
  const handler = toNodeHandler(createMcpHandler(() => createServer(), { legacy: legacy === 'serve' ? 'stateless' : 'reject' }));
  const http = createHttpServer((req, res) => {
    // Secrets in answers, fresh per response: the recorder masks Set-Cookie by default and
    // X-Upstream-Token only when asked (--redact-header); so must replay --update.
    res.setHeader('set-cookie', `sid=${randomUUID()}; HttpOnly`);
    res.setHeader('x-upstream-token', `tok-${randomBytes(6).toString('hex')}`);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      } catch {
        body = undefined;
      }
      const m = body as { id?: unknown; method?: string; params?: { name?: string } } | undefined;
      if (regression === 'http-status' && m?.method === 'tools/call' && m.params?.name === 'search') {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id ?? null, error: { code: -32603, message: 'search backend unavailable' } }));
        return;
      }
      void handler(Object.assign(req, { [Symbol.asyncIterator]: async function* () {} }), res, body);
    });
  });
  http.listen(0, '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
  });
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => process.exit(0));
} else if (legacy === 'missing') {
  serveStdio(() => createServer(), { transport: new NoHandshakeTransport() });
} else {
  serveStdio(() => createServer(), { legacy: legacy === 'reject' ? 'reject' : 'serve' });
}
