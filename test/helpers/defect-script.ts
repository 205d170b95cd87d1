/**
 * The client side of the defect-server sessions (test/servers/defect-server.ts): the official v2
 * SDK client at a chosen protocol revision, the script it runs, and what each step should come to
 * given the server's defect. Used by the transport-parity and revision-parity tests and the
 * validation-recall bench, through defect-sessions.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Client, ProtocolError, SdkError, SdkHttpError } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Defect, Revision } from '../servers/defect-server.js';

const MODERN: Revision = '2026-07-28';

/**
 * Makes a client's `initialize` offer `revision` instead of the SDK's latest (2025-11-25), as an
 * older client would; the server's answer then settles the session's revision, which the SDK
 * accepts for every revision it supports. Works on any transport (stdio, Streamable HTTP).
 */
export function offerRevision(transport: Transport, revision: string): void {
  const send = transport.send.bind(transport);
  transport.send = (msg, options) => {
    const m = msg as { method?: string; params?: Record<string, unknown> };
    if (m.method !== 'initialize') return send(msg, options);
    return send({ ...msg, params: { ...m.params, protocolVersion: revision } } as typeof msg, options);
  };
}

/** What the client script does wrong on purpose on 2026-07-28 (it strips the envelope off one
 * request, to see whether the server refuses it): the client rule that says so, twice (one
 * finding per missing field). */
export const SCRIPT_FAULT = 'VER-META-REQUIRED';

/** What the client says when it gives up on a request whose answer came under another id. */
const STRAY = 'the answer came under another id';

/** What one step of the script came to: `ok`, or the JSON-RPC error it met, as `<code> <message
 * up to its first colon>`, whether the SDK threw it as a ProtocolError (an error answer, or its own
 * refusal of a structuredContent off the tool's outputSchema) or, for an HTTP error status it does
 * not unwrap, as an SdkHttpError holding the body (JSON, or one SSE event); or `stray answer` when
 * the script gave up on a request whose answer carried another id. Anything else (a lost
 * connection, a timeout, a body that is no JSON-RPC error) keeps its own text, which no expected
 * outcome matches: the test fails and says what happened. */
function outcome(err: unknown): string {
  if (err instanceof ProtocolError) return `${err.code} ${err.message.split(':')[0]}`;
  if (err instanceof SdkError && err.message.includes(STRAY)) return 'stray answer';
  const text = err instanceof SdkHttpError ? (err.data as { text?: unknown } | undefined)?.text : undefined;
  if (typeof text === 'string') {
    const body = text.trimStart().startsWith('{') ? text : /^data: ?(.*)$/m.exec(text)?.[1];
    try {
      const { error } = JSON.parse(body ?? '') as { error?: { code?: unknown; message?: unknown } };
      if (typeof error?.code === 'number' && typeof error.message === 'string') return `${error.code} ${error.message.split(':')[0]}`;
    } catch {
      // not JSON: the text below says what came instead
    }
  }
  return `unexpected ${String(err)}`;
}

/** Calls `echo` and gives up once the client reports an answer with an id it never sent (the SDK
 * reports it through onerror and keeps waiting): the script waits for that event, not a clock. */
async function echoOrStray(client: Client): Promise<unknown> {
  const abort = new AbortController();
  const previous = client.onerror;
  client.onerror = (err) => {
    if (err.message.includes('unknown message ID')) abort.abort(new Error(STRAY));
    else previous?.(err);
  };
  try {
    return await client.callTool({ name: 'echo', arguments: { text: 'hi' } }, { signal: abort.signal });
  } finally {
    client.onerror = previous;
  }
}

/** The script: (2026-07-28) discover the server, list the tools twice, call a tool with an
 * outputSchema, a failing tool and an unknown one, list the prompts, get a prompt without its
 * required argument, read a resource that does not exist, call `echo`, and (2026-07-28) get a
 * prompt without the request's envelope. Returns each step's outcome. */
async function script(client: Client, transport: Transport, modern: boolean): Promise<Record<string, string>> {
  const outcomes: Record<string, string> = {};
  const step = async (name: string, f: () => Promise<unknown>): Promise<void> => {
    try {
      await f();
      outcomes[name] = 'ok';
    } catch (err) {
      // Some steps fail on purpose (an unknown tool), some by the server's defect, and the SDK
      // refuses some defective answers: the wire has them all. expectedOutcomes says which.
      outcomes[name] = outcome(err);
    }
  };
  // What the server offers, from this process (2025: initialize said so).
  if (modern) await step('server/discover', () => client.discover());
  await step('tools/list', () => client.listTools());
  await step('tools/list again', () => client.listTools());
  await step('tools/call lookup', () => client.callTool({ name: 'lookup', arguments: { what: 'apples' } }));
  await step('tools/call fail', () => client.callTool({ name: 'fail', arguments: {} }));
  await step('tools/call no_such_tool', () => client.callTool({ name: 'no_such_tool', arguments: {} }));
  await step('prompts/list', () => client.listPrompts());
  await step('prompts/get without its required argument', () => client.getPrompt({ name: 'greet', arguments: {} }));
  await step('resources/read of a missing resource', () => client.readResource({ uri: 'test://nope' }));
  await step('tools/call echo', () => echoOrStray(client));
  if (modern) {
    // The SDK always sends the envelope: strip it off this one request on its way out.
    const send = transport.send.bind(transport);
    transport.send = (msg, options) => {
      const m = msg as { method?: string; params?: Record<string, unknown> };
      if (m.method === 'prompts/get' && m.params) delete m.params._meta;
      return send(msg, options);
    };
    await step('prompts/get without _meta', () => client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }));
    transport.send = send;
  }
  return outcomes;
}

/** What each step should come to, given the server's defects (none: the clean server): the clean
 * server refuses the unknown tool, the missing argument and the request without its envelope
 * (-32602), and a missing resource with its era's code (-32602 on 2026-07-28, -32002 before);
 * each defect changes one step. */
export function expectedOutcomes(defects: readonly Defect[], revision: Revision): Record<string, string> {
  const modern = revision === MODERN;
  const has = (d: Defect): boolean => defects.includes(d);
  const legacyNotFound = modern === has('notfound-code');
  return {
    ...(modern ? { 'server/discover': 'ok' } : {}),
    'tools/list': 'ok',
    'tools/list again': 'ok',
    'tools/call lookup': has('output-schema') ? "-32602 Structured content does not match the tool's output schema" : 'ok',
    'tools/call fail': has('failure-as-error') ? '-32603 Internal error' : 'ok',
    'tools/call no_such_tool': has('unknown-tool-iserror') ? 'ok' : '-32602 Unknown tool',
    'prompts/list': has('prompts-list-error') ? '-32603 Internal error' : 'ok',
    'prompts/get without its required argument': has('prompt-args-served') ? 'ok' : '-32602 Invalid params',
    'resources/read of a missing resource': legacyNotFound ? '-32002 Resource not found' : '-32602 Invalid params',
    'tools/call echo': has('id-mismatch') ? 'stray answer' : 'ok',
    ...(modern ? { 'prompts/get without _meta': has('accept-missing-meta') ? 'ok' : '-32602 Invalid params' } : {}),
  };
}

/** A host that remembers this server's DiscoverResult adopts it and skips the connect-time probe
 * (on stdio, a process of its own); the script's discover() then asks the real process. */
const PRIOR = {
  kind: 'modern' as const,
  discover: {
    resultType: 'complete' as const,
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: {}, prompts: {}, resources: {} },
    ttlMs: 0,
    cacheScope: 'public' as const,
  },
};

/** What the client saw, and (stdio only) how the recorder exited once its client ended stdin. */
export interface Driven {
  outcomes: Record<string, string>;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
}

/** Connects the v2 client at `revision` (2026-07-28: negotiated; older: offered in `initialize`)
 * and runs the script; on stdio it then ends the recorder's stdin and waits for it to exit. */
export async function drive(transport: Transport, revision: Revision): Promise<Driven> {
  const modern = revision === MODERN;
  const client = new Client(
    { name: 'parity-client', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: { mode: modern ? 'auto' : 'legacy' } },
  );
  if (!modern) offerRevision(transport, revision);
  await client.connect(transport, modern && transport instanceof StdioClientTransport ? { prior: PRIOR } : {});
  try {
    const negotiated = client.getNegotiatedProtocolVersion();
    if (negotiated !== revision) throw new Error(`the client negotiated ${String(negotiated)}, not ${revision}`);
    const outcomes = await script(client, transport, modern);
    if (!(transport instanceof StdioClientTransport)) return { outcomes };
    // The SDK's close gives the process 2 s after stdin ends, then SIGTERM, which tells the
    // recorder to stop waiting for its live verdicts: end stdin here and wait for the exit.
    const proc = (transport as unknown as { _process?: ChildProcess })._process;
    if (!proc) throw new Error('the SDK no longer keeps its child in StdioClientTransport._process: end its stdin another way');
    if (proc.exitCode === null && proc.signalCode === null) {
      const closed = once(proc, 'close');
      proc.stdin?.end();
      await closed;
    }
    return { outcomes, exit: { code: proc.exitCode, signal: proc.signalCode } };
  } finally {
    await client.close();
  }
}
