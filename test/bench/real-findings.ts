/**
 * The false-positive half of the validation-recall bench: real servers we did not write, recorded
 * through the real `record` CLI (live validation) with the official v2 SDK client at every
 * revision and transport each speaks, and their findings (live and `validate`'s) held against
 * what the tests assert is true of them (ORACLE). A finding outside that list is a false-positive
 * candidate: counted, and printed with where it points, for a person to judge.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import type { Cassette } from '../../lib/cassette/cassette.js';
import type { Violation } from '../../lib/violation.js';
import { validateCassettes } from '../../validators/validate-run.js';
import { offerRevision } from '../helpers/defect-script.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { everythingServer, exampleServer, node, NODE22_HINT, node22, node22Peer, node22Ready, root } from '../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../helpers/proc.js';
import { drain, forceLoopback, loopbackPort, PipeTransport, where } from '../helpers/real-server.js';
import { startRecorder, waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import type { Revision } from '../servers/defect-server.js';
import { tmcpHandler } from '../servers/tmcp-server.js';
import { markdownTable } from './report.js';
import type { Scope } from './scope.js';

const modules = join(root, 'node_modules');
const LEGACY: Revision[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
/** Streamable HTTP came with 2025-03-26. */
const LEGACY_HTTP: Revision[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

/**
 * What the tests hold true of each server (the oracle), by rule: test/validators/real-traffic.test.ts
 * (server-filesystem, server-memory, tmcp), validate-command.test.ts on the example cassettes
 * (the v2 SDK example server and server-everything, one list for both), older-revisions.test.ts
 * (server-everything's resource_link blocks before 2025-06-18, TOOLS-CALL-SHAPE), and
 * real-fastmcp.test.ts (firecrawl-mcp: it asserts no finding true, only HTTP-REQ-CT absent).
 * `before`: true only on revisions older than this one.
 */
const SDK_EXAMPLES = ['SEC-LOCAL-HTTP-OPEN', 'SEC-STATE-ID-GUESSABLE', 'TOOLS-NOPARAM', 'TOOLS-STRUCT-MIRROR'];
const ORACLE: Record<string, { rule: string; before?: Revision }[]> = {
  'server-everything': [...SDK_EXAMPLES.map((rule) => ({ rule })), { rule: 'TOOLS-CALL-SHAPE', before: '2025-06-18' }],
  'server-memory': [{ rule: 'TOOLS-NOPARAM' }, { rule: 'TOOLS-STRUCT-MIRROR' }],
  'server-filesystem': [{ rule: 'TOOLS-NOPARAM' }, { rule: 'TOOLS-STRUCT-MIRROR' }],
  tmcp: [{ rule: 'CAP-RESPECT' }, { rule: 'ENV-RES-RESULT' }, { rule: 'TOOLS-ERR-PROTOCOL' }],
  'firecrawl-mcp': [],
  'v2 SDK example server': SDK_EXAMPLES.map((rule) => ({ rule })),
};

const known = (server: string, revision: Revision, v: Violation): boolean =>
  ORACLE[server]!.some((o) => o.rule === v.rule && (o.before === undefined || revision < o.before));

type Steps = (c: Client, dir: string) => Promise<void>;

/** One server: how to start it on each transport it speaks, at which revisions, and what the
 * client does there (the steps of the tests that hold the oracle, and the lists). */
interface Target {
  server: string;
  /** Why it cannot run here, if it cannot. */
  needs?: string | undefined;
  stdio?: { command: (dir: string) => string[]; env?: (dir: string) => Record<string, string>; revisions: Revision[] };
  http?: { start: (scope: Scope, dir: string) => Promise<string>; revisions: Revision[] };
  steps: Steps;
}

/** A server started with `--require force-loopback` on port 0 (it has no host option), on this
 * Node or `runtime`. */
async function loopbackHttp(scope: Scope, args: string[], env: Record<string, string>, path: string, runtime = node): Promise<string> {
  const child = spawnTracked(scope.t, runtime, ['--require', forceLoopback, ...args], { env: { ...process.env, PORT: '0', ...env } });
  const port = await loopbackPort(child);
  drain(child);
  return `http://127.0.0.1:${port}${path}`;
}

const TARGETS: Target[] = [
  {
    server: 'server-everything',
    stdio: { command: () => [node, everythingServer, 'stdio'], revisions: LEGACY },
    http: { start: (scope) => loopbackHttp(scope, [everythingServer, 'streamableHttp'], {}, '/mcp'), revisions: LEGACY_HTTP },
    steps: async (c) => {
      await c.listTools();
      await c.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
      await c.callTool({ name: 'get-structured-content', arguments: { location: 'New York' } });
      await c.callTool({ name: 'get-resource-links', arguments: { count: 2 } });
      await c.listPrompts();
      await c.listResources();
    },
  },
  {
    server: 'server-memory',
    stdio: {
      command: () => [node, join(modules, '@modelcontextprotocol', 'server-memory', 'dist', 'index.js')],
      env: (dir) => ({ MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }),
      revisions: LEGACY,
    },
    steps: async (c) => {
      await c.listTools();
      const entities = [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }];
      await c.callTool({ name: 'create_entities', arguments: { entities } });
      await c.callTool({ name: 'read_graph', arguments: {} });
    },
  },
  {
    server: 'server-filesystem',
    stdio: {
      command: (dir) => [node, join(modules, '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js'), dir],
      revisions: LEGACY,
    },
    steps: async (c, dir) => {
      await c.listTools();
      await c.callTool({ name: 'list_allowed_directories', arguments: {} });
      await c.callTool({ name: 'write_file', arguments: { path: join(dir, 'a.txt'), content: 'hello' } });
      await c.callTool({ name: 'read_text_file', arguments: { path: join(dir, 'a.txt') } });
    },
  },
  {
    // tmcp counter-offers 2025-06-18 to a 2025-11-25 client: that revision is not asked for.
    server: 'tmcp',
    stdio: {
      command: () => [node, join(root, 'dist', 'test', 'servers', 'tmcp-server.js'), 'stdio'],
      revisions: ['2026-07-28', '2025-06-18', '2025-03-26', '2024-11-05'],
    },
    http: { start: (scope) => listenInProcess(scope), revisions: ['2026-07-28', '2025-06-18', '2025-03-26'] },
    steps: async (c) => {
      await c.listTools();
      await c.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      await c.callTool({ name: 'no_such_tool', arguments: {} }).catch(() => undefined);
      await c.listPrompts();
    },
  },
  {
    // It wants Node 22 (its engines range): one of the Node 22 peers, as in its test.
    server: 'firecrawl-mcp',
    needs: node22Ready ? undefined : NODE22_HINT,
    http: {
      start: (scope) =>
        loopbackHttp(
          scope,
          [node22Peer('node_modules', 'firecrawl-mcp', 'dist', 'index.js')],
          // A dummy key: nothing here calls the Firecrawl API.
          { HTTP_STREAMABLE_SERVER: 'true', HOST: '127.0.0.1', FIRECRAWL_API_KEY: 'fc-test-not-a-key' },
          '/mcp',
          node22,
        ),
      revisions: LEGACY_HTTP,
    },
    steps: async (c) => void (await c.listTools()),
  },
  {
    server: 'v2 SDK example server',
    stdio: { command: () => [node, exampleServer, 'stdio'], revisions: ['2026-07-28', ...LEGACY] },
    http: { start: (scope) => printedUrl(scope, [exampleServer, 'http', '0']), revisions: ['2026-07-28', ...LEGACY_HTTP] },
    steps: async (c) => {
      await c.listTools();
      await c.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      await c.listResources();
      await c.readResource({ uri: 'example://readme' });
      await c.listPrompts();
      await c.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    },
  },
];

/** tmcp's HTTP transport, mounted on node:http in this process (as its tests do). */
async function listenInProcess(scope: Scope): Promise<string> {
  const server = createServer(tmcpHandler());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  scope.teardown(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

async function printedUrl(scope: Scope, args: string[]): Promise<string> {
  const child = spawnTracked(scope.t, node, args);
  const url = (await waitForOutput(child.stdout!, (s) => s.includes('\n'))).split('\n')[0]!.trim();
  drain(child);
  return url;
}

/** The v2 client at `revision` (2026-07-28 negotiated, older offered), its steps, its close. */
async function runClient(transport: Transport, revision: Revision, steps: () => Promise<void>, client: Client): Promise<string> {
  if (revision !== '2026-07-28') offerRevision(transport, revision);
  await client.connect(transport);
  try {
    await steps();
    return client.getNegotiatedProtocolVersion() ?? '?';
  } finally {
    await client.close();
  }
}

interface Recorded {
  server: string;
  carrier: 'stdio' | 'HTTP';
  asked: Revision;
  negotiated: string;
  cassette: Cassette;
  live: Violation[];
  offline: Violation[];
  error?: string;
}

async function record(scope: Scope, target: Target, carrier: 'stdio' | 'HTTP', revision: Revision, url?: string): Promise<Recorded> {
  const dir = tempDir(scope.t, 'mcpc-recall-real-');
  const path = join(dir, 'real.cassette.json');
  const mode = revision === '2026-07-28' ? 'auto' : 'legacy';
  const client = new Client({ name: 'mcp-cassette-recall', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode } });
  let negotiated = '?';
  let error: string | undefined;
  let cassette: Cassette;
  if (carrier === 'stdio') {
    const recorder = startRecorder(scope.t, path, target.stdio!.command(dir), {
      cwd: dir,
      env: { ...process.env, ...target.stdio!.env?.(dir) },
    });
    let stderr = '';
    recorder.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-2000)));
    negotiated = await runClient(new PipeTransport(recorder), revision, () => target.steps(client, dir), client).catch((err: Error) => {
      error = err.message;
      return '?';
    });
    cassette = await waitForSessions(path, 1).catch((err: Error) => {
      throw new Error(`${target.server} stdio ${revision}: ${err.message}; the recorder said: ${stderr}`);
    });
  } else {
    const recorder = await startHttpRecorder(scope.t, url!, path);
    negotiated = await runClient(
      new StreamableHTTPClientTransport(new URL(recorder.url)),
      revision,
      () => target.steps(client, dir),
      client,
    ).catch((err: Error) => {
      error = err.message;
      return '?';
    });
    cassette = (await recorder.stop()).cassette;
  }
  const live = cassette.sessions.flatMap((s) => s.violations ?? []);
  return {
    server: target.server,
    carrier,
    asked: revision,
    negotiated,
    cassette,
    live,
    offline: validateCassettes([path]).violations,
    ...(error ? { error } : {}),
  };
}

async function recordAll(scope: Scope, notes: string[]): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for (const target of TARGETS) {
    if (target.needs) {
      notes.push(`${target.server} not measured: ${target.needs}`);
      continue;
    }
    for (const revision of target.stdio?.revisions ?? []) {
      process.stderr.write(`recall: ${target.server} stdio ${revision}\n`);
      out.push(await record(scope, target, 'stdio', revision));
    }
    if (!target.http) continue;
    const url = await target.http.start(scope, tempDir(scope.t, 'mcpc-recall-server-'));
    for (const revision of target.http.revisions) {
      process.stderr.write(`recall: ${target.server} HTTP ${revision}\n`);
      out.push(await record(scope, target, 'HTTP', revision, url));
    }
  }
  return out;
}

/** Live findings beyond the offline ones (as a multiset), in words: live and offline disagree. */
function liveOnly(r: Recorded): string[] {
  const offline = r.offline.map((v) => `${v.rule} ${where(r.cassette, v)}`);
  return r.live
    .map((v) => `${v.rule} ${where(r.cassette, v)}`)
    .filter((f) => {
      const i = offline.indexOf(f);
      if (i === -1) return true;
      offline.splice(i, 1);
      return false;
    });
}

/** Per server and transport: the revisions recorded, and the findings summed over them. */
function summary(recorded: Recorded[]): string {
  const groups = new Map<string, Recorded[]>();
  for (const r of recorded) groups.set(`${r.server}\u0000${r.carrier}`, [...(groups.get(`${r.server}\u0000${r.carrier}`) ?? []), r]);
  const rows = [...groups.values()].map((rs) => {
    const findings = rs.reduce((n, r) => n + r.offline.length, 0);
    const candidates = rs.reduce((n, r) => n + r.offline.filter((v) => !known(r.server, r.asked, v)).length, 0);
    const agree = rs.every((r) => r.live.length === r.offline.length && liveOnly(r).length === 0);
    const rules = [...new Set(rs.flatMap((r) => r.offline.filter((v) => known(r.server, r.asked, v)).map((v) => v.rule)))].sort();
    return [
      rs[0]!.server,
      rs[0]!.carrier,
      rs.map((r) => (r.asked === r.negotiated ? r.asked : `${r.asked} → ${r.negotiated}`)).join(', '),
      String(findings),
      `${findings - candidates}${rules.length ? ` (${rules.join(', ')})` : ''}`,
      String(candidates),
      agree ? 'yes' : 'no',
    ];
  });
  return markdownTable(['server', 'transport', 'revisions', 'findings', 'known true', 'FP candidates', 'live = offline'], rows);
}

export async function realServerFindings(scope: Scope): Promise<string> {
  const notes: string[] = [];
  const recorded = await recordAll(scope, notes);
  const rows = recorded.map((r) => {
    const candidates = r.offline.filter((v) => !known(r.server, r.asked, v));
    for (const v of candidates)
      notes.push(
        `FP candidate, ${r.server} ${r.carrier} ${r.negotiated}: ${v.rule} (${v.severity}) @ ${where(r.cassette, v)}: ${v.message}`,
      );
    for (const f of liveOnly(r)) notes.push(`live only, ${r.server} ${r.carrier} ${r.negotiated}: ${f}`);
    if (r.error) notes.push(`client error, ${r.server} ${r.carrier} asked ${r.asked}: ${r.error}`);
    const rules = [...new Set(r.offline.filter((v) => known(r.server, r.asked, v)).map((v) => v.rule))].sort();
    return [
      r.server,
      r.carrier,
      r.asked === r.negotiated ? r.asked : `${r.asked} → ${r.negotiated}`,
      String(r.offline.length),
      `${r.offline.length - candidates.length}${rules.length ? ` (${rules.join(', ')})` : ''}`,
      String(candidates.length),
      r.live.length === r.offline.length && liveOnly(r).length === 0 ? 'yes' : `no (${r.live.length})`,
    ];
  });
  const total = recorded.reduce((n, r) => n + r.offline.filter((v) => !known(r.server, r.asked, v)).length, 0);
  return [
    '### Real servers: findings against what the tests hold true',
    '',
    summary(recorded),
    '',
    'Each recording:',
    '',
    markdownTable(['server', 'transport', 'revision', 'findings', 'known true', 'FP candidates', 'live = offline'], rows),
    '',
    `${total} false-positive candidate(s) in ${recorded.length} recordings.`,
    ...notes.map((n) => `- ${n}`),
  ].join('\n');
}
