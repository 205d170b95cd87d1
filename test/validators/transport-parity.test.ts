import test, { type ExecutionContext } from 'ava';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { Client, ProtocolError, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import type { Violation } from '../../lib/violation.js';
import { validateCassettes } from '../../validators/validate-run.js';
import { DEFECTS, type Defect } from '../servers/defect-server.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { root, node } from '../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../helpers/proc.js';
import { recordArgs, waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

/*
 * Transport parity: the same client script, on the official v2 SDK client, drives a server
 * seeded with one defect (test/servers/defect-server.ts) through the real `record` CLI with live
 * validation, over stdio, stateless 2026-07-28 HTTP answering JSON, the same answering SSE, and
 * a 2025-11-25 sessionful HTTP session. Each defect raises exactly its rule, at the message it
 * is about, live and offline (`validate`'s code on the saved cassette) alike; the clean server
 * raises nothing. The defects all need more than one message (a list before a call, two lists,
 * a declared capability), which stateless HTTP shows only through the server context.
 */

const defectServer = join(root, 'dist', 'test', 'servers', 'defect-server.js');

type Transport4 = 'stdio' | 'http-json' | 'http-sse' | 'http-2025';
const TRANSPORTS: Transport4[] = ['stdio', 'http-json', 'http-sse', 'http-2025'];

/** What the script itself does wrong on purpose (it strips the envelope off one request, to see
 * whether the server refuses it): the client rule that says so, on the modern transports. */
const SCRIPT_FAULT = 'VER-META-REQUIRED';

/** Rules a transport raises whatever the server: none so far (the script authenticates, so a
 * loopback server is not "open", SEC-LOCAL-HTTP-OPEN). */
const TRANSPORT_ONLY: Record<Transport4, string[]> = { stdio: [], 'http-json': [], 'http-sse': [], 'http-2025': [] };

/** Where each defect's finding points: the answer to which request, at which path. */
const WHERE: Record<Defect, { method: string; name?: string; nth?: number; path: string }> = {
  'output-schema': { method: 'tools/call', name: 'lookup', path: '/result/structuredContent' },
  'unknown-tool-iserror': { method: 'tools/call', name: 'no_such_tool', path: '/result/isError' },
  'failure-as-error': { method: 'tools/call', name: 'fail', path: '/error' },
  'list-order': { method: 'tools/list', nth: 2, path: '/result/tools' },
  'prompts-list-error': { method: 'prompts/list', path: '/error' },
  'accept-missing-meta': { method: 'prompts/get', path: '/result' },
};

/** Defects that are no violation on a transport: 2025 has no `_meta` envelope to leave out, and
 * deterministic tool order is a 2026-07-28 SHOULD (server/tools §Capabilities). */
const NOT_ON: Partial<Record<Transport4, Defect[]>> = { 'http-2025': ['accept-missing-meta', 'list-order'] };

/** What one step of the script came to: `ok`, or the JSON-RPC error it met, as `<code> <message
 * up to its first colon>`, whether the SDK threw it as a ProtocolError (an error answer, or its own
 * refusal of a structuredContent off the tool's outputSchema) or, for an HTTP error status it does
 * not unwrap, as an SdkHttpError holding the body (JSON, or one SSE event). Anything else (a lost
 * connection, a timeout, a body that is no JSON-RPC error) keeps its own text, which no expected
 * outcome matches: the test fails and says what happened. */
function outcome(err: unknown): string {
  if (err instanceof ProtocolError) return `${err.code} ${err.message.split(':')[0]}`;
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

/** The script: (2026-07-28) discover the server, list the tools twice, call a tool with an outputSchema, a failing tool and an
 * unknown one, list the prompts, and (2026-07-28) get a prompt without the request's envelope. Returns each step's outcome. */
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

/** What each step should come to, given the server's defect: the clean server refuses the unknown
 * tool (-32602) and the request without its envelope (-32602); each defect changes one step. */
function expectedOutcomes(defect: Defect | undefined, modern: boolean): Record<string, string> {
  return {
    ...(modern ? { 'server/discover': 'ok' } : {}),
    'tools/list': 'ok',
    'tools/list again': 'ok',
    'tools/call lookup': defect === 'output-schema' ? "-32602 Structured content does not match the tool's output schema" : 'ok',
    'tools/call fail': defect === 'failure-as-error' ? '-32603 Internal error' : 'ok',
    'tools/call no_such_tool': defect === 'unknown-tool-iserror' ? 'ok' : '-32602 Unknown tool',
    'prompts/list': defect === 'prompts-list-error' ? '-32603 Internal error' : 'ok',
    ...(modern ? { 'prompts/get without _meta': defect === 'accept-missing-meta' ? 'ok' : '-32602 Invalid params' } : {}),
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
interface Driven {
  outcomes: Record<string, string>;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
}

async function drive(transport: Transport, legacy: boolean): Promise<Driven> {
  const client = new Client(
    { name: 'parity-client', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: { mode: legacy ? 'legacy' : 'auto' } },
  );
  await client.connect(transport, transport instanceof StdioClientTransport ? { prior: PRIOR } : {});
  try {
    const outcomes = await script(client, transport, !legacy);
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

/** The sessions one defect's client made, and what was found in them, live and offline. */
interface Verdicts {
  /** What the client saw, step by step. */
  outcomes: Record<string, string>;
  sessions: RecordedSession[];
  live: Violation[];
  offline: Violation[];
}

const DEFECT_RUNS: (Defect | undefined)[] = [undefined, ...(Object.keys(DEFECTS) as Defect[])];

/** stdio: a recording per defect (one server process each). */
async function recordStdio(t: ExecutionContext, dir: string, defect: Defect | undefined): Promise<Verdicts> {
  const path = join(dir, `stdio-${defect ?? 'clean'}.cassette.json`);
  const args = recordArgs(path, [node, defectServer, 'stdio', ...(defect ? ['--defect', defect] : [])]);
  const transport = new StdioClientTransport({ command: node, args, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const { outcomes, exit } = await drive(transport, false);
  t.deepEqual(
    exit,
    { code: 0, signal: null },
    `stdio ${defect ?? 'clean'}: the recorder exits 0 when its client ends stdin; stderr: ${stderr}`,
  );
  const cassette = await waitForSessions(path, 1);
  return {
    outcomes,
    sessions: cassette.sessions,
    live: cassette.sessions.flatMap((s) => s.violations ?? []),
    offline: validateCassettes([path]).violations,
  };
}

/**
 * HTTP: one server and one recording for all defects, each defect shown to its own user (its
 * bearer token, see defect-server.ts), one client after the other. The exchanges of one user
 * share a server context and no other, so each defect's findings are those of its user's
 * sessions (told apart by the cassette's `caller`, in the order the clients ran).
 */
async function recordHttp(t: ExecutionContext, dir: string, kind: Transport4): Promise<Map<Defect | undefined, Verdicts>> {
  const server = spawnTracked(t, node, [defectServer, 'http', ...(kind === 'http-sse' ? ['--sse'] : [])]);
  const upstream = (await waitForOutput(server.stdout!, (s) => s.includes('\n'))).trim();
  const path = join(dir, `${kind}.cassette.json`);
  const proxy = await startHttpRecorder(t, upstream, path, ['--log-level', 'warn']);
  const outcomes = new Map<Defect | undefined, Record<string, string>>();
  for (const defect of DEFECT_RUNS) {
    const driven = await drive(
      new StreamableHTTPClientTransport(new URL(proxy.url), { requestInit: { headers: { authorization: `Bearer ${defect ?? 'clean'}` } } }),
      kind === 'http-2025',
    );
    outcomes.set(defect, driven.outcomes);
  }
  const { cassette, result } = await proxy.stop();
  t.is(result.code, 0, `${kind}: the recorder exits 0 on SIGINT; stderr: ${result.stderr}`);
  const offline = validateCassettes([path]).violations;
  const callers = [...new Set(cassette.sessions.map((s) => s.exchanges?.[0]?.caller))];
  t.is(callers.length, DEFECT_RUNS.length, `${kind}: one caller per user, every exchange with its caller`);
  const out = new Map<Defect | undefined, Verdicts>();
  DEFECT_RUNS.forEach((defect, i) => {
    const sessions = cassette.sessions.filter((s) => s.exchanges?.[0]?.caller === callers[i]);
    const ids = new Set(sessions.map((s) => s.id));
    out.set(defect, {
      outcomes: outcomes.get(defect)!,
      sessions,
      live: sessions.flatMap((s) => s.violations ?? []),
      offline: offline.filter((v) => ids.has(v.session)),
    });
  });
  t.is(
    [...out.values()].reduce((n, v) => n + v.offline.length, 0),
    offline.length,
    `${kind}: every finding is in the sessions of one user`,
  );
  return out;
}

const key = (v: Violation): string => `${v.session}#${v.seq} ${v.direction} ${v.path} ${v.rule}`;

/** The message a defect's finding should point at: the answer to the nth request of its kind. */
function expectedAt(sessions: RecordedSession[], where: (typeof WHERE)[Defect]): { session: string; seq: number } | undefined {
  let n = 0;
  for (const s of sessions) {
    for (const m of s.messages) {
      const j = m.json as { id?: unknown; method?: string; params?: { name?: string } } | undefined;
      if (m.direction !== 'client-to-server' || j?.method !== where.method || (where.name && j.params?.name !== where.name)) continue;
      if (++n !== (where.nth ?? 1)) continue;
      const answer = s.messages.find(
        (r) => r.direction === 'server-to-client' && (r.json as { id?: unknown } | undefined)?.id === j.id && r.seq > m.seq,
      );
      return answer ? { session: s.id, seq: answer.seq } : undefined;
    }
  }
  return undefined;
}

for (const kind of TRANSPORTS) {
  test.serial(
    `transport parity over ${kind}: each defect raises exactly its rule at its message, live and offline alike; the clean server raises nothing`,
    async (t) => {
      const dir = tempDir(t);
      const runs = kind === 'stdio' ? undefined : await recordHttp(t, dir, kind);
      const allowed = new Set([...TRANSPORT_ONLY[kind], ...(kind === 'http-2025' ? [] : [SCRIPT_FAULT])]);
      const seen: string[] = [];
      for (const defect of DEFECT_RUNS) {
        const label = `${kind} ${defect ?? 'clean'}`;
        const v = runs ? runs.get(defect)! : await recordStdio(t, dir, defect);
        t.deepEqual(v.outcomes, expectedOutcomes(defect, kind !== 'http-2025'), `${label}: what the client saw, step by step`);
        t.deepEqual(v.live.map(key).sort(), v.offline.map(key).sort(), `${label}: live verdicts equal offline verdicts`);
        const found = v.offline.filter((x) => !allowed.has(x.rule));
        if (process.env.PARITY_DEBUG)
          t.log(
            label,
            v.offline.map((x) => `${key(x)}: ${x.message}`),
          );
        if (kind !== 'http-2025')
          t.is(
            v.offline.filter((x) => x.rule === SCRIPT_FAULT).length,
            2,
            `${label}: the script's own fault is seen, once per missing field`,
          );
        if (!defect || NOT_ON[kind]?.includes(defect)) {
          t.deepEqual(found.map(key), [], `${label}: nothing is raised`);
          continue;
        }
        const rule = DEFECTS[defect];
        t.deepEqual(
          found.map((x) => x.rule),
          [rule],
          `${label}: exactly ${rule}`,
        );
        const at = expectedAt(v.sessions, WHERE[defect]);
        t.truthy(at, `${label}: the answer the finding is about is in the cassette`);
        if (found.length === 1 && at) {
          t.like(
            found[0],
            { session: at.session, seq: at.seq, direction: 'server-to-client', path: WHERE[defect].path },
            `${label}: ${rule} points at its answer`,
          );
          seen.push(rule);
        }
      }
      // The recall table of docs/validation.md is this line, per transport.
      t.log(`${kind} catches: ${seen.join(', ')}`);
    },
  );
}
