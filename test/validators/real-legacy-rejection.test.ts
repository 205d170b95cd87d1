/**
 * A dual-era client tries 2026-07-28 first and falls back to `initialize` when the server turns
 * it away; `mcp-cassette probe` sends crafted 2026-07-28 requests. How a 2025-era server turns
 * such a request away is its own affair (basic/versioning.mdx §Backward Compatibility leaves it
 * implementation-defined), so the answer is judged by the 2025 rules: no rule only a 2026-07-28
 * server must keep (ENV-ERRCODE-LEGACYRANGE, VER-UNSUPPORTED-32022, VER-META-MISSING-32602)
 * fires on it. And a 2026-07-28 server that refuses a request it may refuse (one in a version it
 * does not support) says nothing about the capabilities it declared (CAP-DECLARED-ANSWERS).
 * Real servers, through the real `record` proxy, each finding checked by `validate` (issue 31).
 */
import test, { type ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/client';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { cli, everythingServer, exampleServer, node, root } from '../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../helpers/proc.js';
import {
  drain,
  findings,
  forceLoopback,
  liveBeyondOffline,
  loopbackPort,
  recordRealHttp,
  recordRealStdio,
  type RealRecording,
  v2Client,
  validated,
} from '../helpers/real-server.js';
import { recordArgs, waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const run = promisify(execFile);
const memoryServer = join(root, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
const PV = 'io.modelcontextprotocol/protocolVersion';

type Json = { id?: unknown; method?: string; params?: { _meta?: Record<string, unknown> }; error?: { code?: unknown } };

/** Each 2026-07-28 request (one whose `_meta` names a protocol version) the server answered with
 * an error: method, HTTP status (on HTTP) and error code. An id-less error on HTTP answers the
 * request of its exchange. */
function refusals(cassette: Cassette): string[] {
  const out: string[] = [];
  for (const s of cassette.sessions) {
    for (const m of s.messages) {
      const req = m.json as Json | undefined;
      if (m.direction !== 'client-to-server' || typeof req?.method !== 'string' || req.params?._meta?.[PV] === undefined) continue;
      const answer = s.messages.find((a) => {
        const j = a.json as Json | undefined;
        if (a.direction !== 'server-to-client' || j?.error === undefined) return false;
        return j.id === req.id || (j.id === null && a.http !== undefined && a.http.exchange === m.http?.exchange);
      });
      const status = m.http ? s.exchanges?.find((x) => x.id === m.http!.exchange)?.status : undefined;
      if (answer) out.push(`${req.method} ${status ?? 'stdio'} ${String((answer.json as Json).error!.code)}`);
    }
  }
  return out.sort();
}

/** `mcp-cassette probe <plan> --url <endpoint>` (or over stdio), exit 0 expected. */
async function probe(plan: string, target: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  // A generous deadline per request: a loaded machine starts a stdio server (behind `record`) slowly.
  const { stdout } = await run(node, [cli, 'probe', plan, '--timeout', '60000', ...target], { env, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** server-everything's streamableHttp mode (sessionful, the v1 SDK 1.32), bound to loopback. */
async function everythingHttp(t: ExecutionContext): Promise<string> {
  const server = spawnTracked(t, node, ['--require', forceLoopback, everythingServer, 'streamableHttp'], {
    env: { ...process.env, PORT: '0' },
  });
  const port = await loopbackPort(server);
  drain(server);
  return `http://127.0.0.1:${port}/mcp`;
}

/** The official example server (v2 SDK `createMcpHandler`, stateless): 2026-07-28 only with
 * `reject`, else 2025 served statelessly as well. */
async function exampleHttp(t: ExecutionContext, reject: boolean): Promise<string> {
  const server = spawnTracked(t, node, [exampleServer, 'http', '0', ...(reject ? ['reject'] : [])]);
  const out = await waitForOutput(server.stdout!, (s) => s.includes('\n'));
  drain(server);
  return out.split('\n')[0]!.trim();
}

// - SEC-LOCAL-HTTP-OPEN (info): a server on 127.0.0.1 answers MCP requests without any
//   Authorization. basic/transports.mdx §Security Warning: "Servers **SHOULD** implement proper
//   authentication for all connections". Said once for the server.
// - TOOLS-NOPARAM (info): a tool without parameters declares {"type":"object"} (or with empty
//   properties), which accepts any object. server/tools.mdx §Tool: "`{ "type": "object",
//   "additionalProperties": false }` - **Recommended**: explicitly accepts only empty objects".
const EVERYTHING_NOPARAM = [2, 7, 9, 10].map((i) => `TOOLS-NOPARAM:info @ answer to tools/list /result/tools/${i}/inputSchema`);

let everythingRecording: Promise<RealRecording> | undefined;

test.serial(
  'server-everything (2025-11-25, sessionful HTTP) turns a dual-era client server/discover away with 400 and -32000: judged by the 2025 rules',
  async (t) => {
    const url = await everythingHttp(t);
    const rec = await (everythingRecording = recordRealHttp(
      t,
      url,
      async (c: Client) => {
        t.is(c.getNegotiatedProtocolVersion(), '2025-11-25', 'the client fell back to initialize');
        t.true((await c.listTools()).tools.some((x) => x.name === 'echo'));
      },
      { mode: 'auto' },
    ));
    t.deepEqual(refusals(rec.cassette), ['server/discover 400 -32000'], 'the server turned the 2026-07-28 attempt away');
    t.deepEqual(liveBeyondOffline(rec), [], 'live says nothing offline does not');
    // Not reported, rightly: ENV-ERRCODE-LEGACYRANGE on the -32000 ("New implementations avoid
    // -32000..-32019" is a 2026-07-28 rule; 2025-11-25 has no such range rule).
    t.deepEqual(findings(rec, rec.offline), ['SEC-LOCAL-HTTP-OPEN:info @ initialize', ...EVERYTHING_NOPARAM].sort());
  },
);

test.serial(
  "mcp-cassette probe against server-everything over HTTP: the server's 400s to the 2026-07-28 probes are judged by the 2025 rules",
  async (t) => {
    const plan = join(tempDir(t), 'plan.cassette.json');
    const recorded = await everythingRecording;
    if (!recorded) return t.fail('the recording of the test above is missing');
    writeFileSync(plan, JSON.stringify(recorded.cassette));
    const path = join(tempDir(t), 'probe.cassette.json');
    const recorder = await startHttpRecorder(t, await everythingHttp(t), path);
    t.regex(await probe(plan, ['--url', recorder.url]), /header-absent\s+HTTP-PV-ABSENT/);
    const rec = await validated(path, (await recorder.stop()).cassette);
    t.true(
      refusals(rec.cassette).filter((r) => r.endsWith(' 400 -32000')).length >= 5,
      `the server turned the probes away: ${refusals(rec.cassette).join(', ')}`,
    );
    t.deepEqual(liveBeyondOffline(rec), [], 'live says nothing offline does not');
    // Each a true finding about the probe's own crafted request, which breaks a client MUST on
    // purpose (basic/index.mdx §`_meta`: every request carries protocolVersion and
    // clientCapabilities; streamable-http.mdx: every POST carries MCP-Protocol-Version, and an
    // Mcp-Method equal to the body's method). Not reported, rightly: ENV-ERRCODE-LEGACYRANGE on
    // each of the server's -32000 refusals.
    t.deepEqual(findings(rec, rec.offline), [
      'HTTP-MCP-METHOD:error @ server/discover /method',
      'HTTP-PV-PRESENT:error @ server/discover',
      'SEC-LOCAL-HTTP-OPEN:info @ initialize',
      'VER-META-REQUIRED:error @ server/discover /params/_meta',
      'VER-META-REQUIRED:error @ server/discover /params/_meta',
    ]);
  },
);

test("server-memory (2025-11-25, stdio): the -32601 to a dual-era client's in-place probe and to mcp-cassette probe's 2026-07-28 requests is judged by the 2025 rules", async (t) => {
  const dir = tempDir(t);
  const env = { ...(process.env as Record<string, string>), MEMORY_FILE_PATH: join(dir, 'memory.jsonl') };
  // The v2 client in dual-era mode on one pipe: server/discover, -32601, then initialize.
  const recorded = await recordRealStdio(
    t,
    [node, memoryServer],
    async (c) => {
      t.is(c.getNegotiatedProtocolVersion(), '2025-11-25', 'the client fell back to initialize');
      t.true((await c.listTools()).tools.some((x) => x.name === 'read_graph'));
    },
    { env, mode: 'auto' },
  );
  t.deepEqual(refusals(recorded.cassette), ['server/discover stdio -32601']);
  t.deepEqual(liveBeyondOffline(recorded), [], 'live says nothing offline does not');
  // read_graph takes no parameters (TOOLS-NOPARAM, as above).
  t.deepEqual(findings(recorded, recorded.offline), ['TOOLS-NOPARAM:info @ answer to tools/list /result/tools/6/inputSchema']);
  // That recording is the probe's plan: its crafted requests derive from the recorded discover.
  const plan = join(dir, 'plan.cassette.json');
  writeFileSync(plan, JSON.stringify(recorded.cassette));
  const path = join(dir, 'probe.cassette.json');
  const probes = ['unsupported-version', 'missing-protocol-version', 'missing-client-capabilities', 'unknown-method'];
  const out = await probe(plan, [...probes.flatMap((p) => ['--probe', p]), '--', node, ...recordArgs(path, [node, memoryServer])], env);
  t.regex(out, /unsupported-version\s+VER-UNSUPPORTED-32022/);
  const rec = await validated(path, await waitForSessions(path, probes.length));
  // (The probe without protocolVersion is no 2026-07-28 request, so it is not counted here.)
  t.deepEqual(refusals(rec.cassette), [
    'mcp-cassette/probe-unknown-method stdio -32601',
    'server/discover stdio -32601',
    'server/discover stdio -32601',
  ]);
  // The probe's request without clientCapabilities breaks a client MUST on purpose (basic/index.mdx
  // §`_meta`). Not reported, rightly: VER-UNSUPPORTED-32022 on the -32601 to the discover asking
  // for 2099-01-01, and VER-META-MISSING-32602 on the -32601 to the one without
  // clientCapabilities: a 2025-11-25 server has neither server/discover nor the envelope.
  t.deepEqual(findings(rec, rec.offline), ['VER-META-REQUIRED:error @ server/discover /params/_meta']);
});

/** A plan for the probe: the v2 client in 2025 (stateless, no envelope) and then dual-era mode
 * against the example server that serves both, listing tools, prompts and resources. */
async function examplePlan(t: ExecutionContext, path: string): Promise<void> {
  const upstream = await exampleHttp(t, false);
  for (const mode of ['legacy', 'auto'] as const) {
    const recorder = await startHttpRecorder(t, upstream, path);
    const client = v2Client(mode);
    await client.connect(new StreamableHTTPClientTransport(new URL(recorder.url)));
    try {
      await client.listTools();
      await client.listPrompts();
      await client.listResources();
    } finally {
      await client.close();
    }
    await recorder.stop();
  }
}

// - VER-UNSUPPORTED-32022 (error): the server's -32022 to a request that named no version has
//   no `data.requested`. schema.ts UnsupportedProtocolVersionError: `data` has "requested: The
//   protocol version that was requested by the client", required (without the header, the
//   request is 2025-03-26: streamable-http.mdx §Protocol Version Header).
const NO_REQUESTED = (method: string) => `VER-UNSUPPORTED-32022:error @ answer to ${method} /error/data/requested`;

test('mcp-cassette probe against a 2026-07-28-only stateless server (v2 SDK createMcpHandler): the list requests it refuses as unsupported say nothing of its capabilities', async (t) => {
  const dir = tempDir(t);
  const plan = join(dir, 'plan.cassette.json');
  await examplePlan(t, plan);
  const path = join(dir, 'probe.cassette.json');
  const recorder = await startHttpRecorder(t, await exampleHttp(t, true), path);
  t.regex(await probe(plan, ['--url', recorder.url, '--probe', 'list-invariant']), /list-invariant\s+STATE-LIST-INVARIANT/);
  const rec = await validated(path, (await recorder.stop()).cassette);
  // The probe re-sends the recorded 2025 lists (no envelope, no MCP-Protocol-Version); the server
  // supports only 2026-07-28 (its DiscoverResult, answered in between, declares tools, prompts and
  // resources) and refuses each with 400 and -32022.
  const sent = rec.cassette.sessions.flatMap((s) => s.messages.map((m) => m.json as Json)).filter((j) => j?.method !== undefined);
  t.true(sent.some((j) => j.method === 'server/discover'));
  const refused = rec.cassette.sessions.flatMap((s) =>
    s.messages.filter((m) => (m.json as Json | undefined)?.error?.code === -32022 && s.exchanges?.[0]?.status === 400),
  );
  t.is(refused.length, 6, 'each of tools/list, prompts/list and resources/list refused on both connections');
  t.deepEqual(liveBeyondOffline(rec), [], 'live says nothing offline does not');
  // Not reported, rightly: CAP-DECLARED-ANSWERS on each refusal after the DiscoverResult (a
  // request in a version the server does not support may be refused, whatever it declared).
  t.deepEqual(
    findings(rec, rec.offline),
    ['prompts/list', 'prompts/list', 'resources/list', 'resources/list', 'tools/list', 'tools/list'].map(NO_REQUESTED),
  );
});

test('requests a 2026-07-28-only stateless server (v2 SDK createMcpHandler) refuses: only the requests are at fault, its capabilities say nothing', async (t) => {
  const path = join(tempDir(t), 'raw.cassette.json');
  const recorder = await startHttpRecorder(t, await exampleHttp(t, true), path);
  const envelope = {
    [PV]: '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  };
  const post = async (id: number, method: string, params: unknown, headers: Record<string, string>): Promise<number> => {
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const res = await fetch(recorder.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
    await res.text();
    return res.status;
  };
  const modern = (method: string) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': method });
  const statuses = [
    await post(1, 'server/discover', { _meta: envelope }, modern('server/discover')),
    // The header names 2025-11-25, the body 2026-07-28.
    await post(2, 'tools/list', { _meta: envelope }, { ...modern('tools/list'), 'mcp-protocol-version': '2025-11-25' }),
    // No Mcp-Method header.
    await post(3, 'prompts/list', { _meta: envelope }, { 'mcp-protocol-version': '2026-07-28' }),
    // A 2025-11-25 request, and one that names no version (2025-03-26).
    await post(4, 'resources/list', {}, { 'mcp-protocol-version': '2025-11-25' }),
    await post(5, 'tools/list', {}, {}),
    // clientCapabilities is no object.
    await post(6, 'tools/list', { _meta: { ...envelope, 'io.modelcontextprotocol/clientCapabilities': 'none' } }, modern('tools/list')),
    await post(7, 'prompts/list', { _meta: envelope }, modern('prompts/list')),
  ];
  t.deepEqual(statuses, [200, 400, 400, 400, 400, 400, 200]);
  const rec = await validated(path, (await recorder.stop()).cassette);
  t.deepEqual(liveBeyondOffline(rec), [], 'live says nothing offline does not');
  // The client's faults, each true (streamable-http.mdx: MCP-Protocol-Version equals the body's
  // version, every request has an Mcp-Method; basic/index.mdx §`_meta`: clientCapabilities is
  // required), the -32022 without data.requested (as above) and the open local server (as
  // above). Not reported, rightly: CAP-DECLARED-ANSWERS on any of the five refusals.
  t.deepEqual(
    findings(rec, rec.offline),
    [
      'HTTP-MCP-METHOD:error @ prompts/list /method',
      'HTTP-PV-MATCH:error @ tools/list /params/_meta/io.modelcontextprotocol~1protocolVersion',
      'SEC-LOCAL-HTTP-OPEN:info @ prompts/list',
      NO_REQUESTED('tools/list'),
      'VER-META-REQUIRED:error @ tools/list /params/_meta',
    ].sort(),
  );
});
