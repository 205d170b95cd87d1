/**
 * Recording the v2 SDK client's sessions with test/servers/defect-server.ts through the real
 * `record` CLI (live validation on), one cell (transport x protocol revision) at a time, and
 * judging what was found: each seeded defect should raise exactly its rule, at the answer it is
 * about, live and offline (`validate`'s code on the saved cassette) alike; the clean server
 * nothing. The transport-parity and revision-parity tests assert it; the validation-recall bench
 * counts it.
 */
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import type { Violation } from '../../lib/violation.js';
import { validateCassettes } from '../../validators/validate-run.js';
import { DEFECTS, ruleOf, type Defect, type Revision } from '../servers/defect-server.js';
import { drive, expectedOutcomes, SCRIPT_FAULT } from './defect-script.js';
import { startHttpRecorder } from './http-recorder.js';
import { node, root } from './paths.js';
import { spawnTracked, waitForOutput } from './proc.js';
import { recordArgs, waitForSessions } from './recording.js';

export const defectServer = join(root, 'dist', 'test', 'servers', 'defect-server.js');

/** stdio; stateless 2026-07-28 HTTP answering JSON, or SSE; HTTP sessions (2025 and earlier). */
export type Carrier = 'stdio' | 'http-json' | 'http-sse' | 'http-2025';
export const CARRIERS: Carrier[] = ['stdio', 'http-json', 'http-sse', 'http-2025'];

/** Whether a transport carries a revision: 2026-07-28 is stateless over HTTP, the others open
 * sessions with `initialize`; Streamable HTTP came with 2025-03-26 (2024-11-05 had HTTP+SSE, a
 * transport of its own, which mcp-cassette does not record). */
export function carries(carrier: Carrier, revision: Revision): boolean {
  if (carrier === 'stdio') return true;
  if (carrier === 'http-2025') return revision !== '2026-07-28' && revision !== '2024-11-05';
  return revision === '2026-07-28';
}

/** What one client meets: a server with these defects (none: the clean server). */
export type Run = readonly Defect[];
export const runName = (run: Run): string => (run.length === 0 ? 'clean' : run.join('+'));

/** The runs of a cell: the clean server first, then each defect alone. */
export const DEFECT_RUNS: Run[] = [[], ...(Object.keys(DEFECTS) as Defect[]).map((d) => [d])];

/**
 * The same defects on three servers: each defect changes a step of its own, so one server carries
 * several and each finding is told apart by the answer it points at. The clean server; every
 * defect but one; and prompt-args-served alone, since prompts/list must answer for
 * PROMPTS-ERR-ARGS to know the required argument, which prompts-list-error refuses. Three stdio
 * recordings instead of ten keep a test quick on a busy machine, where each recording waits for
 * its low-priority cassette writer.
 */
export const COMBINED_RUNS: Run[] = [
  [],
  (Object.keys(DEFECTS) as Defect[]).filter((d) => d !== 'prompt-args-served'),
  ['prompt-args-served'],
];

/** The rules the runs should raise at `revision`, in the order the script meets them. */
export const rulesOf = (runs: Run[], revision: Revision): string[] =>
  runs.flatMap((run) => run.map((d) => ruleOf(d, revision)).filter((r) => r !== undefined));

/** The sessions one run's client made, and what was found in them, live and offline. */
export interface Verdicts {
  /** What the client saw, step by step. */
  outcomes: Record<string, string>;
  sessions: RecordedSession[];
  live: Violation[];
  offline: Violation[];
  /** stdio: how the recorder exited once its client ended stdin, and what it said on stderr. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  stderr?: string;
}

/** stdio: a recording per run (one server process each). */
export async function recordStdio(dir: string, revision: Revision, run: Run): Promise<Verdicts> {
  const path = join(dir, `stdio-${revision}-${runName(run)}.cassette.json`);
  const args = recordArgs(path, [node, defectServer, 'stdio', ...(run.length ? ['--defect', run.join(',')] : [])]);
  const transport = new StdioClientTransport({ command: node, args, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const { outcomes, exit } = await drive(transport, revision);
  const cassette = await waitForSessions(path, 1);
  return {
    outcomes,
    sessions: cassette.sessions,
    live: cassette.sessions.flatMap((s) => s.violations ?? []),
    offline: validateCassettes([path]).violations,
    ...(exit ? { exit } : {}),
    stderr,
  };
}

/**
 * HTTP: one server and one recording for all runs of a cell, each run's defects shown to a user
 * of its own (its bearer token, see defect-server.ts), one client after the other. The exchanges
 * of one user share a server context and no other, so each run's findings are those of its
 * user's sessions (told apart by the cassette's `caller`, in the order the clients ran). Throws
 * when the recorder does not exit 0 or a finding is in no user's sessions.
 */
export async function recordHttp(
  t: ExecutionContext,
  dir: string,
  carrier: Exclude<Carrier, 'stdio'>,
  revision: Revision,
  runs: Run[] = DEFECT_RUNS,
): Promise<Map<Run, Verdicts>> {
  const server = spawnTracked(t, node, [defectServer, 'http', ...(carrier === 'http-sse' ? ['--sse'] : [])]);
  const upstream = (await waitForOutput(server.stdout!, (s) => s.includes('\n'))).trim();
  const path = join(dir, `${carrier}-${revision}.cassette.json`);
  const proxy = await startHttpRecorder(t, upstream, path, ['--log-level', 'warn']);
  const outcomes = new Map<Run, Record<string, string>>();
  for (const run of runs) {
    const headers = { authorization: `Bearer ${runName(run)}` };
    const driven = await drive(new StreamableHTTPClientTransport(new URL(proxy.url), { requestInit: { headers } }), revision);
    outcomes.set(run, driven.outcomes);
  }
  const { cassette, result } = await proxy.stop();
  server.kill();
  if (result.code !== 0) throw new Error(`${carrier} ${revision}: the recorder exited ${String(result.code)}: ${result.stderr}`);
  const offline = validateCassettes([path]).violations;
  const callers = [...new Set(cassette.sessions.map((s) => s.exchanges?.[0]?.caller))];
  if (callers.length !== runs.length) throw new Error(`${carrier} ${revision}: ${callers.length} callers, not one per user`);
  const out = new Map<Run, Verdicts>();
  runs.forEach((run, i) => {
    const sessions = cassette.sessions.filter((s) => s.exchanges?.[0]?.caller === callers[i]);
    const ids = new Set(sessions.map((s) => s.id));
    out.set(run, {
      outcomes: outcomes.get(run)!,
      sessions,
      live: sessions.flatMap((s) => s.violations ?? []),
      offline: offline.filter((v) => ids.has(v.session)),
    });
  });
  const placed = [...out.values()].reduce((n, v) => n + v.offline.length, 0);
  if (placed !== offline.length) throw new Error(`${carrier} ${revision}: ${offline.length - placed} findings in no user's sessions`);
  return out;
}

/** Where each defect's finding points: the answer to which request (the nth of its kind, naming
 * this tool, prompt or resource), at which path; `stray`: the answer carries the request's id +
 * 1000 (defect-server.ts), so it is found by that id. */
const WHERE: Record<Defect, { method: string; name?: string; nth?: number; path: string; stray?: boolean }> = {
  'output-schema': { method: 'tools/call', name: 'lookup', path: '/result/structuredContent' },
  'unknown-tool-iserror': { method: 'tools/call', name: 'no_such_tool', path: '/result/isError' },
  'failure-as-error': { method: 'tools/call', name: 'fail', path: '/error' },
  'list-order': { method: 'tools/list', nth: 2, path: '/result/tools' },
  'prompts-list-error': { method: 'prompts/list', path: '/error' },
  'accept-missing-meta': { method: 'prompts/get', nth: 2, path: '/result' },
  'prompt-args-served': { method: 'prompts/get', path: '/result' },
  'notfound-code': { method: 'resources/read', name: 'test://nope', path: '/error/code' },
  'id-mismatch': { method: 'tools/call', name: 'echo', path: '/id', stray: true },
};

/** The message a defect's finding should point at: the answer to the nth request of its kind. */
function expectedAt(sessions: RecordedSession[], defect: Defect): { session: string; seq: number } | undefined {
  const where = WHERE[defect];
  let n = 0;
  for (const s of sessions) {
    for (const m of s.messages) {
      const j = m.json as { id?: unknown; method?: string; params?: { name?: string; uri?: string } } | undefined;
      if (m.direction !== 'client-to-server' || j?.method !== where.method) continue;
      if (where.name && (j.params?.name ?? j.params?.uri) !== where.name) continue;
      if (++n !== (where.nth ?? 1)) continue;
      const id = where.stray && typeof j.id === 'number' ? j.id + 1000 : j.id;
      const answer = s.messages.find(
        (r) => r.direction === 'server-to-client' && (r.json as { id?: unknown } | undefined)?.id === id && r.seq > m.seq,
      );
      return answer ? { session: s.id, seq: answer.seq } : undefined;
    }
  }
  return undefined;
}

/** A finding as text that says where it is: `<session>#<seq> <direction> <path> <rule>`. */
export const key = (v: Violation): string => `${v.session}#${v.seq} ${v.direction} ${v.path} ${v.rule}`;

/** What one seeded defect of a run came to. */
export interface Seeded {
  defect: Defect;
  /** The rule it breaks in this cell; undefined where it breaks no rule of the revision. */
  rule?: string;
  /** The answer the finding should point at (undefined: not in the cassette). */
  at?: { session: string; seq: number };
  /** Its rule, once, at its answer: offline (`validate`) and live (`record`). */
  caughtOffline: boolean;
  caughtLive: boolean;
}

/** What one run of a cell came to. */
export interface Judgement {
  seeded: Seeded[];
  /** Every other finding, offline and live (the script's own fault apart): false positives. */
  extraOffline: Violation[];
  extraLive: Violation[];
  /** Findings of the script's own fault (2026-07-28: two per run). */
  scriptFaults: number;
}

export function judge(v: Verdicts, revision: Revision, run: Run): Judgement {
  const seeded = run.map((defect): Seeded => {
    const rule = ruleOf(defect, revision);
    const at = expectedAt(v.sessions, defect);
    const hits = (vs: Violation[]): boolean => {
      const found = vs.filter((x) => x.rule === rule);
      return found.length === 1 && at !== undefined && found[0]!.session === at.session && found[0]!.seq === at.seq;
    };
    return {
      defect,
      ...(rule ? { rule } : {}),
      ...(at ? { at } : {}),
      caughtOffline: !!rule && hits(v.offline),
      caughtLive: !!rule && hits(v.live),
    };
  });
  /** Findings apart from the script's fault and one of each seeded rule at its answer. */
  const extra = (vs: Violation[]): Violation[] => {
    const expected = seeded.map((s) => vs.findIndex((x) => x.rule === s.rule && x.session === s.at?.session && x.seq === s.at?.seq));
    return vs.filter((x, i) => x.rule !== SCRIPT_FAULT && !expected.includes(i));
  };
  return {
    seeded,
    extraOffline: extra(v.offline),
    extraLive: extra(v.live),
    scriptFaults: v.offline.filter((x) => x.rule === SCRIPT_FAULT).length,
  };
}

/**
 * Defects the validator misses on a transport today, which the tests hold to (the bench reports
 * them as misses): when one is caught, its test fails and the entry goes. PROMPTS-ERR-ARGS keeps
 * the prompts/list it compares with per session, and a stateless 2026-07-28 exchange is a session
 * of its own, so the prompts/get of another exchange is never compared with it (rules such as
 * TOOLS-ERR-PROTOCOL read the server context instead).
 */
export const KNOWN_MISSES: Partial<Record<Carrier, Defect[]>> = {};

/** Asserts one run: what the client saw, live equal to offline, and exactly the seeded rules, each
 * once at its answer (nothing for the clean server, for a defect that breaks no rule of the
 * revision, or for a known miss of the carrier, KNOWN_MISSES). Returns the rules caught. */
export function assertRun(t: ExecutionContext, carrier: Carrier, revision: Revision, run: Run, v: Verdicts): string[] {
  const label = `${carrier} ${revision} ${runName(run)}`;
  t.deepEqual(v.outcomes, expectedOutcomes(run, revision), `${label}: what the client saw, step by step`);
  t.deepEqual(v.live.map(key).sort(), v.offline.map(key).sort(), `${label}: live verdicts equal offline verdicts`);
  if (process.env.PARITY_DEBUG)
    t.log(
      label,
      v.offline.map((x) => `${key(x)}: ${x.message}`),
    );
  const j = judge(v, revision, run);
  t.is(j.scriptFaults, revision === '2026-07-28' ? 2 : 0, `${label}: the script's own fault is seen, once per missing field`);
  t.deepEqual(j.extraOffline.map(key), [], `${label}: nothing but the seeded rules is raised`);
  const caught: string[] = [];
  for (const s of j.seeded) {
    if (!s.rule) continue;
    if (KNOWN_MISSES[carrier]?.includes(s.defect)) {
      t.false(s.caughtOffline || s.caughtLive, `${label}: ${s.rule} is caught now: remove ${s.defect} from KNOWN_MISSES`);
      continue;
    }
    t.truthy(s.at, `${label}: the answer the ${s.defect} finding is about is in the cassette`);
    t.true(s.caughtOffline, `${label}: ${s.rule} once, at its answer (offline: ${v.offline.map(key).join(', ')})`);
    t.true(s.caughtLive, `${label}: ${s.rule} once, at its answer, live`);
    if (s.caughtLive && s.caughtOffline) caught.push(s.rule);
  }
  return caught;
}
