/**
 * One scripted session of the v1 SDK client (`@modelcontextprotocol/sdk`) against a corpus server,
 * through `mcp-cassette record`, so the cassette holds what a real client exchanged with that
 * published version: every list followed through every nextCursor, every tool called once with
 * valid and once with invalid arguments (and one unknown tool), a few resources read (from later
 * pages too, and through every template), every prompt got, a subscription, and deterministic
 * answers to the server's sampling, elicitation and roots requests.
 *
 * The script depends only on what the server lists, in the order it lists it, so the same driver
 * records every version; the arguments come from ARGUMENTS by tool name, else from the schema.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { join } from 'node:path';
import { cli, node } from '../helpers/paths.js';
import { waitForSessions } from '../helpers/recording.js';

type Json = Record<string, unknown>;

/** A data: URI the gzip and zip tools compress instead of fetching from the network. */
const DATA_URI = `data:text/plain;base64,${Buffer.from('corpus file content\n').toString('base64')}`;

/**
 * Tools whose output is random by design and that the driver therefore does not call:
 * toggle-simulated-logging sends one log message of a random level at once (Math.random), so no
 * two runs agree, and no replay verdict about it could be tested.
 */
export const NOT_CALLED: Record<string, string> = { 'toggle-simulated-logging': 'sends a log message of a random level at once' };

/** Valid arguments per tool name (everything: old camelCase and new kebab-case names;
 * filesystem: paths inside the workspace). Durations are short: these run in every replay. */
function validArguments(tool: string, workspace: string): Json | undefined {
  const at = (...p: string[]) => join(workspace, ...p);
  const table: Record<string, Json> = {
    // everything, 2025 names
    echo: { message: 'hello corpus' },
    add: { a: 2, b: 3 },
    longRunningOperation: { duration: 0.2, steps: 2 },
    sampleLLM: { prompt: 'Say hello', maxTokens: 10 },
    annotatedMessage: { messageType: 'success', includeImage: true },
    getResourceReference: { resourceId: 3 },
    getResourceLinks: { count: 2 },
    structuredContent: { location: 'New York' },
    zip: { files: { 'corpus.txt': DATA_URI } },
    // everything, 2026 names
    'get-annotated-message': { messageType: 'success', includeImage: true },
    'get-resource-links': { count: 2 },
    'get-resource-reference': { resourceType: 'Text', resourceId: 3 },
    'get-structured-content': { location: 'New York' },
    'get-sum': { a: 2, b: 3 },
    'gzip-file-as-resource': { name: 'corpus.txt.gz', data: DATA_URI, outputType: 'resource' },
    'trigger-long-running-operation': { duration: 0.2, steps: 2 },
    'trigger-sampling-request': { prompt: 'Say hello', maxTokens: 10 },
    'simulate-research-query': { topic: 'replay corpora' },
    // filesystem
    read_file: { path: at('notes.txt') },
    read_text_file: { path: at('notes.txt'), head: 2 },
    read_media_file: { path: at('pixel.png') },
    read_multiple_files: { paths: [at('notes.txt'), at('docs', 'readme.md'), at('missing.txt')] },
    write_file: { path: at('written.txt'), content: 'written by the corpus driver\nsecond line\n' },
    edit_file: { path: at('written.txt'), edits: [{ oldText: 'second line', newText: 'edited line' }] },
    create_directory: { path: at('made', 'nested') },
    list_directory: { path: workspace },
    list_directory_with_sizes: { path: workspace, sortBy: 'size' },
    directory_tree: { path: at('docs') },
    move_file: { source: at('written.txt'), destination: at('moved.txt') },
    search_files: { path: workspace, pattern: '**/*.md' },
    get_file_info: { path: at('notes.txt') },
  };
  return table[tool];
}

/** A value the schema accepts: its default, its first enum value, or one of its type. */
function sample(schema: unknown): unknown {
  const s = (schema ?? {}) as Json;
  if ('default' in s) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return s.format === 'email'
        ? 'ada@example.com'
        : s.format === 'uri'
          ? 'https://example.com/corpus'
          : s.format === 'date'
            ? '2026-01-02'
            : s.format === 'date-time'
              ? '2026-01-02T03:04:05Z'
              : 'corpus';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'corpus';
  }
}

function argumentsFromSchema(schema: Tool['inputSchema']): Json {
  const out: Json = {};
  const props = (schema.properties ?? {}) as Json;
  for (const name of schema.required ?? []) out[name] = sample(props[name]);
  return out;
}

/** Arguments the tool's declared schema refuses: its first property with the wrong type, or an
 * unknown property for a tool that takes none (refused only where additionalProperties is false). */
function invalidArguments(tool: Tool): Json {
  const props = Object.entries((tool.inputSchema.properties ?? {}) as Json);
  if (!props.length) return { unexpected: 'corpus' };
  const [name, schema] = props[0]!;
  const type = (schema as Json).type;
  return { ...argumentsFromSchema(tool.inputSchema), [name]: type === 'string' ? 42 : 'not-a-' + String(type ?? 'value') };
}

/** Content that satisfies a form elicitation's requestedSchema, the same every time. */
function elicitationContent(requested: unknown): Json {
  const schema = (requested ?? {}) as Json;
  const out: Json = {};
  for (const [name, prop] of Object.entries((schema.properties ?? {}) as Json)) {
    const p = prop as Json;
    if (Array.isArray(p.oneOf) && p.oneOf.length) out[name] = (p.oneOf[0] as Json).const ?? sample(p);
    else if (p.type === 'array') {
      const items = (p.items ?? {}) as Json;
      const first = Array.isArray(items.enum) ? items.enum[0] : Array.isArray(items.anyOf) ? (items.anyOf[0] as Json).const : undefined;
      out[name] = first !== undefined ? [first] : [];
    } else out[name] = sample(p);
  }
  return out;
}

/** Prompt argument values by name (everything's prompts); any other argument gets 'corpus'. */
const PROMPT_ARGUMENTS: Record<string, string> = {
  temperature: '0.5',
  style: 'concise',
  resourceId: '2',
  resourceType: 'Text',
  city: 'Lisbon',
  state: 'Lisboa',
  department: 'Engineering',
  name: 'Alice',
};

export interface DriverOptions {
  /** The workspace the filesystem server may use; also the client's one root. */
  workspace: string;
}

async function all<T>(
  page: (cursor?: string) => Promise<{ nextCursor?: string | undefined } & Record<string, unknown>>,
  key: string,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const r = await page(cursor);
    items.push(...((r[key] as T[]) ?? []));
    cursor = r.nextCursor;
  } while (cursor !== undefined);
  return items;
}

/** What tools/list answers with, read without the SDK's check of each tool, page by page. */
const LenientToolList = z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })), nextCursor: z.string().optional() });

/**
 * Every tool, through the SDK's listTools. Where the SDK refuses the answer (its ToolSchema wants
 * every inputSchema to say `type: "object"`, which filesystem 2025.7.1's do not), that refusal is
 * in the cassette, and the driver asks once more the way a lenient client would, so that the
 * tools are still called and their answers recorded.
 */
async function listTools(client: Client): Promise<Tool[]> {
  try {
    return await all<Tool>((cursor) => client.listTools(cursor !== undefined ? { cursor } : {}), 'tools');
  } catch {
    const tools = await all<Record<string, unknown>>(
      (cursor) => client.request({ method: 'tools/list', params: cursor !== undefined ? { cursor } : {} }, LenientToolList),
      'tools',
    );
    return tools.map((t) => ({ ...t, inputSchema: { type: 'object', ...(t.inputSchema as Json | undefined) } }) as Tool);
  }
}

/** Errors are what the session records, not failures of the driver. */
async function attempt(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch {
    // a JSON-RPC error, or the client's own check of the answer: both are in the cassette
  }
}

/** Runs the scripted session against `server` (argv) through `mcp-cassette record` into `cassette`. */
export async function recordCorpusSession(cassette: string, server: string[], options: DriverOptions): Promise<void> {
  const client = new Client(
    { name: 'mcp-cassette-corpus', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const first = request.params.messages[0]?.content;
    const text = first && 'text' in first ? String(first.text) : '';
    return {
      model: 'corpus-model',
      role: 'assistant',
      stopReason: 'endTurn',
      content: { type: 'text', text: `corpus answer to: ${text.slice(0, 60)}` },
    };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => ({
    action: 'accept',
    content: elicitationContent((request.params as Json).requestedSchema) as Record<string, string>,
  }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: pathToFileURL(options.workspace).href, name: 'corpus workspace' }],
  }));
  const transport = new StdioClientTransport({
    command: node,
    args: [cli, 'record', '--log-level', 'warn', '--cassette', cassette, '--', ...server],
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => {});
  await client.connect(transport);
  try {
    const caps = client.getServerCapabilities() ?? {};
    await client.ping();
    if (caps.logging) await client.setLoggingLevel('debug');

    if (caps.resources) {
      const resources = await all<{ uri: string }>((cursor) => client.listResources(cursor !== undefined ? { cursor } : {}), 'resources');
      const templates = await all<{ uriTemplate: string }>(
        (cursor) => client.listResourceTemplates(cursor !== undefined ? { cursor } : {}),
        'resourceTemplates',
      );
      // The first two, and a few from later pages of a paged list.
      const picks = new Set([0, 1, 15, 55].filter((i) => i < resources.length).map((i) => resources[i]!.uri));
      for (const uri of picks) await attempt(() => client.readResource({ uri }));
      for (const t of templates) await attempt(() => client.readResource({ uri: t.uriTemplate.replace(/\{[^}]+\}/g, '1') }));
      await attempt(() => client.readResource({ uri: 'corpus://no/such/resource' }));
      if (caps.resources.subscribe && resources[0]) {
        await attempt(() => client.subscribeResource({ uri: resources[0]!.uri }));
        await attempt(() => client.unsubscribeResource({ uri: resources[0]!.uri }));
      }
    }

    if (caps.prompts) {
      const prompts = await all<{ name: string; arguments?: Array<{ name: string }> }>(
        (cursor) => client.listPrompts(cursor !== undefined ? { cursor } : {}),
        'prompts',
      );
      for (const p of prompts) {
        const args = Object.fromEntries((p.arguments ?? []).map((a) => [a.name, PROMPT_ARGUMENTS[a.name] ?? 'corpus']));
        await attempt(() => client.getPrompt({ name: p.name, arguments: args }));
      }
    }

    const tools = await listTools(client);
    for (const tool of tools) {
      if (tool.name in NOT_CALLED) continue;
      const call = (args: Json) => {
        // The SDK refuses to send a plain call to a task-only tool; send the request as it is.
        if (tool.execution?.taskSupport === 'required')
          return client.request({ method: 'tools/call', params: { name: tool.name, arguments: args } }, CallToolResultSchema);
        return client.callTool({ name: tool.name, arguments: args }, undefined, { onprogress: () => {} });
      };
      const valid = validArguments(tool.name, options.workspace) ?? argumentsFromSchema(tool.inputSchema);
      await attempt(() => call(valid));
      // A toggle is called twice, so that it ends as it began.
      if (tool.name.startsWith('toggle-')) await attempt(() => call(valid));
      await attempt(() => call(invalidArguments(tool)));
    }
    await attempt(() => client.callTool({ name: 'corpus-no-such-tool', arguments: {} }));
  } finally {
    await client.close();
  }
  await waitForSessions(cassette, 1);
}
