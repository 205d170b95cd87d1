/**
 * Progress fidelity of `serve`: every progress notification recorded before a result reaches the
 * SDK client's `onprogress`, in order, before the result, as it did from the real server. Both SDK
 * clients dispatch a notification in a microtask but a response at once, and drop the request's
 * progress handler with its response, so progress that reaches them in the same read as the
 * answer is lost (replay/serve/read-gap.ts). A progress handled after the result is dropped and
 * reported through `onerror`, so every step seen and no error means every step came first.
 */
import { Client as V2Client, StreamableHTTPClientTransport as V2Http, type Transport as V2Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCassette } from '../../../lib/cassette/store.js';
import { node } from '../../helpers/paths.js';
import { collect, spawnTracked } from '../../helpers/proc.js';
import { recordTargetCassette } from '../../replay/target-client.js';
import { LEGACY_INIT, serveArgs, startListening } from './helpers.js';
import { removeDir } from '../../helpers/tmp.js';

type Endpoint = { args: string[] } | { url: string };
type Peer = 'v1' | 'v2 legacy' | 'v2 2026-07-28';
const PEERS: Peer[] = ['v1', 'v2 legacy', 'v2 2026-07-28'];
const TIMINGS = ['fast', 'recorded'];

interface Seen {
  /** What `onprogress` got, in order. */
  progress: Array<{ progress: unknown; total: unknown }>;
  text: unknown;
  /** What the client reported through `onerror` (a dropped progress shows up here). */
  errors: string[];
}

/** How long a busy client keeps its event loop blocked after sending `tools/call`. */
const BUSY_MS = 300;

/** A client busy with other work when the frames come: after sending `tools/call` it blocks its
 * event loop, so everything `serve` writes meanwhile waits unread and arrives in as few reads as
 * the client's read size allows. The outcome must not depend on it. */
function busyAfterCall(transport: { send(message: never, options?: never): Promise<void> }): void {
  const send = transport.send.bind(transport);
  transport.send = async (message: never, options?: never) => {
    await send(message, options);
    if ((message as { method?: unknown }).method === 'tools/call') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, BUSY_MS);
  };
}

/** Calls `count` with `onprogress` through a real SDK client against `serve`. */
async function countWithProgress(peer: Peer, endpoint: Endpoint, busy: boolean): Promise<Seen> {
  const seen: Seen = { progress: [], text: undefined, errors: [] };
  const onprogress = (p: { progress: unknown; total?: unknown }) => void seen.progress.push({ progress: p.progress, total: p.total });
  const record = (result: unknown) => {
    seen.text = ((result as { content?: unknown }).content as Array<{ text?: string }> | undefined)?.[0]?.text;
  };
  if (peer === 'v1') {
    const client = new V1Client({ name: 'progress-test', version: '1.0.0' }, { capabilities: {} });
    client.onerror = (e) => void seen.errors.push(String(e));
    const transport =
      'url' in endpoint ? new V1Http(new URL(endpoint.url)) : new V1Stdio({ command: node, args: endpoint.args, stderr: 'ignore' });
    if (busy) busyAfterCall(transport as never);
    await client.connect(transport);
    try {
      record(await client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, { onprogress }));
    } finally {
      // serve ends the session it was asked to end (a refusal or a lost connection fails the test).
      if (transport instanceof V1Http) await transport.terminateSession();
      await client.close();
    }
    return seen;
  }
  const client = new V2Client(
    { name: 'progress-test', version: '1.0.0' },
    { versionNegotiation: { mode: peer === 'v2 legacy' ? 'legacy' : { pin: '2026-07-28' } } },
  );
  client.onerror = (e) => void seen.errors.push(String(e));
  const transport: V2Transport =
    'url' in endpoint ? new V2Http(new URL(endpoint.url)) : new V2Stdio({ command: node, args: endpoint.args, stderr: 'ignore' });
  if (busy) busyAfterCall(transport as never);
  await client.connect(transport);
  try {
    record(await client.callTool({ name: 'count', arguments: { n: 3 } }, { onprogress }));
  } finally {
    await client.close();
  }
  return seen;
}

const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-serve-progress-'));
const cassette = join(dir, 'progress.cassette.json');
/** The progress recorded in each session of the cassette (one list per session, in order). */
let recorded: Array<Array<{ progress: unknown; total: unknown }>> = [];

test.after.always(() => removeDir(dir));
test.before(async () => {
  await recordTargetCassette(cassette);
  recorded = loadCassette(cassette)
    .sessions.filter((s) => s.messages.some((m) => (m.json as { method?: unknown } | undefined)?.method === 'tools/call'))
    .map((s) =>
      s.messages
        .filter(
          (m) => m.direction === 'server-to-client' && (m.json as { method?: unknown } | undefined)?.method === 'notifications/progress',
        )
        .map((m) => {
          const { progress, total } = (m.json as { params: { progress: unknown; total: unknown } }).params;
          return { progress, total };
        }),
    );
});

/** Every peer's call against one endpoint, and what each should have seen: the recorded steps,
 * in order, all before the result, with no progress for an unknown token. */
async function runAll(t: import('ava').ExecutionContext, endpoint: () => Endpoint, how: string): Promise<void> {
  // Both sessions (2025-11-25 and 2026-07-28) recorded the same three steps.
  t.is(recorded.length, 2);
  for (const steps of recorded) t.deepEqual(steps, recorded[0], 'both recorded sessions counted alike');
  t.is(recorded[0]!.length, 3, 'the recording holds three progress notifications');
  const got: Record<string, Seen> = {};
  const want: Record<string, Seen> = {};
  for (const peer of PEERS) {
    for (const busy of [false, true]) {
      const who = `${peer}${busy ? ', busy' : ''}`;
      got[who] = await countWithProgress(peer, endpoint(), busy);
      want[who] = { progress: recorded[0]!, text: 'counted to 3', errors: [] };
    }
  }
  t.deepEqual(got, want, `${how}: every recorded progress reaches onprogress, in order, before the result`);
}

for (const timing of TIMINGS) {
  test.serial(`stdio, --timing ${timing}: v1 and v2 SDK clients see every recorded progress before the result`, async (t) => {
    await runAll(t, () => ({ args: serveArgs(cassette, ['--timing', timing]) }), 'stdio');
  });

  test.serial(`Streamable HTTP, --timing ${timing}: v1 and v2 SDK clients see every recorded progress before the result`, async (t) => {
    const http = await startListening(t, serveArgs(cassette, ['--listen', '127.0.0.1:0', '--timing', timing]));
    await runAll(t, () => ({ url: http.url }), 'HTTP');
    const done = await http.stop();
    t.is(done.code, 0, done.stderr);
    t.regex(done.stderr, /serve: ok: .* 0 unmatched/);
  });
}

test.serial(
  'stdio bytes: only an answer that follows progress is preceded by spaces, 64 KiB after the last progress line; the messages are unchanged',
  async (t) => {
    const child = spawnTracked(t, node, serveArgs(cassette));
    const done = collect(child);
    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'count', arguments: { n: 3 }, _meta: { progressToken: 'p' } },
    };
    for (const m of [
      LEGACY_INIT,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      call,
    ])
      child.stdin!.write(JSON.stringify(m) + '\n');
    child.stdin!.end();
    const out = (await done).stdout.toString('utf8');
    const lines = out.split('\n').slice(0, -1);
    const messages = lines.map(
      (l) => JSON.parse(l) as { id?: unknown; method?: string; params?: { progressToken?: unknown; progress?: unknown } },
    );
    t.deepEqual(
      messages.filter((m) => m.method === 'notifications/progress').map((m) => [m.params!.progressToken, m.params!.progress]),
      [
        ['p', 1],
        ['p', 2],
        ['p', 3],
      ],
    );
    const answer = messages.findIndex((m) => m.id === 7);
    const lastProgress = messages.map((m) => m.method).lastIndexOf('notifications/progress');
    t.true(lastProgress < answer, 'progress before the answer');
    const padded = lines.filter((l) => l.startsWith(' '));
    t.deepEqual(padded, [lines[answer]], 'no other line is padded (the handshake, tools/list, the notifications)');
    t.is(lines[answer]!.trimStart(), JSON.stringify(messages[answer]), 'the answer itself is unchanged');
    // Line ends: the answer's newline is exactly 64 KiB after the last progress notification's.
    const end = (i: number) => Buffer.byteLength(lines.slice(0, i + 1).join('\n'));
    t.is(end(answer) - end(lastProgress), 64 * 1024);
  },
);
