/**
 * The probes against real servers: the official v2 SDK example server (stdio, Streamable HTTP
 * dual-era and modern-only), server-everything (v1 SDK, 2025 only) and tmcp (independent). Each
 * failure below is a real finding, with the spec text it breaks.
 */
import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { everythingServer, exampleServer, node, root } from '../../helpers/paths.js';
import { spawnTracked } from '../../helpers/proc.js';
import { loopbackPort } from '../../helpers/real-server.js';
import { probe, type ProbeArgs } from '../../../validators/probes/probe-run.js';
import type { ProbeOutcome, ProbeResult } from '../../../validators/probes/types.js';
import { tmcpHandler } from '../../servers/tmcp-server.js';
import { converse, sessionFrom, sharedTempDir, startHttp, tmcpServer, writeCassette } from './helpers.js';

const examples = join(root, 'cassettes', 'examples');

function args(cassette: string, over: Partial<ProbeArgs>): ProbeArgs {
  return { cassette, command: [], allowSideEffects: true, format: 'text', header: [], probe: [], timeout: 8000, eofGrace: 2000, ...over };
}

/** `probe rule` → outcome, for every result. */
function outcomes(results: ProbeResult[]): Record<string, ProbeOutcome> {
  return Object.fromEntries(results.map((r) => [`${r.probe} ${r.rule}`, r.outcome]));
}

const MODERN_PASSES = {
  'unsupported-version VER-UNSUPPORTED-32022': 'pass',
  'missing-client-capabilities VER-META-MISSING-32602': 'pass',
  'missing-capability VER-MISSING-CAP-32021': 'pass',
  'missing-capability VER-NO-CAP-INFERENCE': 'pass',
  'unknown-tool TOOLS-ERR-PROTOCOL': 'pass',
  'invalid-arguments TOOLS-ERR-EXECUTION': 'pass',
  'invalid-arguments TOOLS-VALIDATE-INPUTS': 'pass',
  // 'round-1' is a constant the example tool never reads: tampering cannot matter, and the spec
  // requires integrity only when state influences authorization, access or logic (mrtr.mdx §Server Requirements 4).
  'mrtr-state MRTR-STATE-INTEGRITY': 'inconclusive',
  // FAIL (SHOULD): a requestState minted for action "deploy" is accepted with action "deploy-other";
  // mrtr.mdx §Server Requirements (5): state SHOULD be bound to the originating request.
  'mrtr-state MRTR-STATE-REPLAY': 'fail',
  'mrtr-state MRTR-ANY-INSTANCE': 'pass',
  'client-info ENV-INFO-NOEFFECT': 'pass',
} as const;

test('v2 SDK example server over stdio (serveStdio, both eras)', async (t) => {
  const run = await probe(args(join(examples, 'example-server.cassette.json'), { command: [node, exampleServer, 'stdio'] }));
  t.deepEqual(outcomes(run.results), {
    'list-invariant STATE-LIST-INVARIANT': 'pass',
    ...MODERN_PASSES,
    // FAIL: a tools/list whose _meta lacks io.modelcontextprotocol/protocolVersion is served (serveStdio
    // treats it as a claim-less 2025 request); basic/index.mdx §_meta: a request missing either field
    // is malformed and gets -32602 (only `initialize` is exempt, versioning.mdx §Compatibility Matrix).
    'missing-protocol-version VER-META-MISSING-32602': 'fail',
    'unknown-method CAP-UNDECLARED-32601': 'pass',
    'legacy-initialize VER-INIT-ERR-NAMES': 'not-applicable', // dual-era: initialize is served
    'stdin-eof STDIO-EOF-EXIT': 'pass',
  });
});

test('v2 SDK example server over Streamable HTTP (createMcpHandler, 2025 served statelessly)', async (t) => {
  const url = await startHttp(t, [exampleServer, 'http', '0']);
  const run = await probe(args(join(examples, 'example-server-http.cassette.json'), { url }));
  t.deepEqual(outcomes(run.results), {
    'list-invariant STATE-LIST-INVARIANT': 'pass',
    ...MODERN_PASSES,
    'unsupported-version HTTP-PV-UNSUPPORTED': 'pass',
    // Over HTTP the same request gets 400 -32602 (the header names 2026-07-28, so the envelope is required).
    'missing-protocol-version VER-META-MISSING-32602': 'pass',
    'unknown-method HTTP-404-METHOD': 'pass',
    'legacy-initialize VER-INIT-ERR-NAMES': 'not-applicable',
    'legacy-initialize HTTP-405-GET-DELETE': 'not-applicable',
    'header-mismatch HTTP-HDR-VALIDATE': 'pass',
    'header-absent HTTP-PV-ABSENT': 'pass',
    'foreign-origin HTTP-ORIGIN': 'pass',
    'authorization AUTH-401': 'not-applicable',
    'authorization AUTH-PRM-LOCATION': 'not-applicable',
  });
});

test('v2 SDK example server over Streamable HTTP, modern-only (legacy: reject): GET/DELETE 405 and initialize naming versions', async (t) => {
  const url = await startHttp(t, [exampleServer, 'http', '0', 'reject']);
  const run = await probe(
    args(join(examples, 'example-server-http.cassette.json'), { url, probe: ['legacy-initialize', 'header-absent'] }),
  );
  t.deepEqual(outcomes(run.results), {
    'legacy-initialize VER-INIT-ERR-NAMES': 'pass',
    'legacy-initialize HTTP-405-GET-DELETE': 'pass',
    'header-absent HTTP-PV-ABSENT': 'pass',
  });
});

const LEGACY_NA = {
  'unsupported-version VER-UNSUPPORTED-32022': 'not-applicable',
  'missing-protocol-version VER-META-MISSING-32602': 'not-applicable',
  'missing-client-capabilities VER-META-MISSING-32602': 'not-applicable',
  'missing-capability VER-MISSING-CAP-32021': 'not-applicable',
  'missing-capability VER-NO-CAP-INFERENCE': 'not-applicable',
  'mrtr-state MRTR-STATE-INTEGRITY': 'not-applicable',
  'mrtr-state MRTR-STATE-REPLAY': 'not-applicable',
  'mrtr-state MRTR-ANY-INSTANCE': 'not-applicable',
  'legacy-initialize VER-INIT-ERR-NAMES': 'not-applicable',
} as const;

test('server-everything over stdio (2025 only: the 2026-07-28 probes do not apply)', async (t) => {
  const run = await probe(args(join(examples, 'server-everything.cassette.json'), { command: [node, everythingServer, 'stdio'] }));
  t.deepEqual(outcomes(run.results), {
    'list-invariant STATE-LIST-INVARIANT': 'pass', // tools/list
    ...LEGACY_NA,
    // FAIL: an unknown tool comes back as an isError result (v1 SDK); server/tools.mdx §Error Handling (1):
    // unknown tools are protocol errors (JSON-RPC error; the spec's example uses -32602).
    'unknown-tool TOOLS-ERR-PROTOCOL': 'fail',
    'invalid-arguments TOOLS-ERR-EXECUTION': 'pass',
    'invalid-arguments TOOLS-VALIDATE-INPUTS': 'pass',
    'client-info ENV-INFO-NOEFFECT': 'pass',
    'unknown-method CAP-UNDECLARED-32601': 'pass',
    'stdin-eof STDIO-EOF-EXIT': 'pass',
  });
  t.is(run.results.filter((r) => r.rule === 'STATE-LIST-INVARIANT' && r.outcome === 'pass').length, 2, 'tools/list and prompts/list');
});

test('server-everything over Streamable HTTP (sessionful 2025, forced onto 127.0.0.1)', async (t) => {
  // Port 0: the preload reports the port the server got (no port picked first and bound later).
  const child = spawnTracked(
    t,
    node,
    ['--require', join(root, 'test', 'servers', 'force-loopback.cjs'), everythingServer, 'streamableHttp'],
    { env: { ...process.env, PORT: '0' } },
  );
  const probePort = await loopbackPort(child);
  const run = await probe(args(join(examples, 'server-everything.cassette.json'), { url: `http://127.0.0.1:${probePort}/mcp` }));
  t.deepEqual(outcomes(run.results), {
    'list-invariant STATE-LIST-INVARIANT': 'pass',
    ...Object.fromEntries(Object.entries(LEGACY_NA).filter(([k]) => !k.startsWith('legacy-initialize'))),
    'unsupported-version HTTP-PV-UNSUPPORTED': 'not-applicable',
    'unknown-tool TOOLS-ERR-PROTOCOL': 'fail', // as over stdio: server/tools.mdx §Error Handling (1)
    'invalid-arguments TOOLS-ERR-EXECUTION': 'pass',
    'invalid-arguments TOOLS-VALIDATE-INPUTS': 'pass',
    'client-info ENV-INFO-NOEFFECT': 'pass',
    'unknown-method HTTP-404-METHOD': 'not-applicable',
    'legacy-initialize VER-INIT-ERR-NAMES': 'not-applicable',
    'legacy-initialize HTTP-405-GET-DELETE': 'not-applicable',
    'header-mismatch HTTP-HDR-VALIDATE': 'not-applicable',
    'header-absent HTTP-PV-ABSENT': 'not-applicable',
    // FAIL: a POST with Origin: http://mcp-cassette-probe.invalid is served; streamable-http.mdx
    // §Security (1): servers MUST validate Origin and answer an invalid one with 403.
    'foreign-origin HTTP-ORIGIN': 'fail',
    'authorization AUTH-401': 'not-applicable',
    'authorization AUTH-PRM-LOCATION': 'not-applicable',
  });
});

const TMCP_STEPS = [
  { method: 'server/discover' },
  { method: 'tools/list' },
  { method: 'prompts/list' },
  { method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
];

let tmcpCassette: Promise<string> | undefined;
const shared = sharedTempDir();
test.after.always(shared.remove);
function tmcpRecorded(_t: unknown): Promise<string> {
  const command = [node, tmcpServer, 'stdio'];
  tmcpCassette ??= converse(command, TMCP_STEPS).then((pairs) =>
    writeCassette(shared.dir, 'tmcp.cassette.json', [sessionFrom(pairs, command)]),
  );
  return tmcpCassette;
}

const TMCP_COMMON = {
  'list-invariant STATE-LIST-INVARIANT': 'pass',
  'unsupported-version VER-UNSUPPORTED-32022': 'pass',
  'missing-capability VER-MISSING-CAP-32021': 'not-applicable', // its tools never ask for input
  'missing-capability VER-NO-CAP-INFERENCE': 'not-applicable',
  // FAIL: an unknown tool is an isError result; server/tools.mdx §Error Handling (1).
  'unknown-tool TOOLS-ERR-PROTOCOL': 'fail',
  'invalid-arguments TOOLS-ERR-EXECUTION': 'pass',
  'invalid-arguments TOOLS-VALIDATE-INPUTS': 'pass',
  'mrtr-state MRTR-STATE-INTEGRITY': 'not-applicable',
  'mrtr-state MRTR-STATE-REPLAY': 'not-applicable',
  'mrtr-state MRTR-ANY-INSTANCE': 'not-applicable',
  'client-info ENV-INFO-NOEFFECT': 'pass',
  'legacy-initialize VER-INIT-ERR-NAMES': 'not-applicable', // tmcp also serves 2025 initialize
} as const;

test('tmcp over stdio', async (t) => {
  const run = await probe(args(await tmcpRecorded(t), { command: [node, tmcpServer, 'stdio'] }));
  t.deepEqual(outcomes(run.results), {
    ...TMCP_COMMON,
    'missing-protocol-version VER-META-MISSING-32602': 'pass',
    'missing-client-capabilities VER-META-MISSING-32602': 'pass',
    'unknown-method CAP-UNDECLARED-32601': 'pass',
    'stdin-eof STDIO-EOF-EXIT': 'pass',
  });
});

test('tmcp over Streamable HTTP', async (t) => {
  const server = createServer(tmcpHandler());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const run = await probe(args(await tmcpRecorded(t), { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` }));
  t.deepEqual(outcomes(run.results), {
    ...TMCP_COMMON,
    'unsupported-version HTTP-PV-UNSUPPORTED': 'pass',
    // FAIL: a body without _meta protocolVersion under `MCP-Protocol-Version: 2026-07-28` gets 400 -32020
    // (header mismatch) instead of -32602; basic/index.mdx §_meta: a request missing the field is
    // malformed (-32602, HTTP 400). Arguably both readings hold; the v2 SDK answers -32602.
    'missing-protocol-version VER-META-MISSING-32602': 'fail',
    // FAIL: -32602 but with HTTP 200; basic/index.mdx §_meta: the status for a missing field is 400.
    'missing-client-capabilities VER-META-MISSING-32602': 'fail',
    'unknown-method HTTP-404-METHOD': 'pass',
    'legacy-initialize HTTP-405-GET-DELETE': 'not-applicable',
    'header-mismatch HTTP-HDR-VALIDATE': 'pass',
    'header-absent HTTP-PV-ABSENT': 'pass',
    // FAIL: a foreign Origin is served (tmcp allows cross-origin unless allowedOrigins is set);
    // streamable-http.mdx §Security (1): an invalid Origin MUST get 403.
    'foreign-origin HTTP-ORIGIN': 'fail',
    'authorization AUTH-401': 'not-applicable',
    'authorization AUTH-PRM-LOCATION': 'not-applicable',
  });
});
