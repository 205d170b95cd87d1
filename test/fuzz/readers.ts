/**
 * The fuzz suite's later readers of a hostile cassette: `view` (and `record --ui`, whose live view
 * serves the same JSON API) walked as its page would walk it, `export` (OTLP JSON, HAR) and
 * `import --from har` (the round trip keeps every frame), `check`, and an OTLP/HTTP receiver for
 * `record --otel`. Also the seeded tampering that makes a cassette someone could send you out of
 * a recorded one: markup and foreign links in every string the cassette (not the traffic) holds.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { loadCassette } from '../../lib/cassette/store.js';
import { messageBytes } from '../../lib/message.js';
import { cliPath } from '../../lib/paths.js';
import { EVIL_ORIGIN, HOSTILE_MARKUP, HOSTILE_SPECS } from '../helpers/hostile-strings.js';
import { check, firstLine, type Ran, run } from './child.js';
import { mulberry32, type FuzzCase, type Transport } from './frames.js';

/** At most this many nodes of one message are fetched (a 10^5-deep message is walked down its
 * first 40 levels, which is where the page's reader would start). */
const NODES_PER_MESSAGE = 40;

export interface ViewWalk {
  problems: string[];
  /** Messages of every session, as the overview counts them. */
  messages: number;
}

async function getJson(base: URL, path: string, params: Record<string, string | number>): Promise<{ status: number; value: any }> {
  const u = new URL(path, base);
  u.search = '';
  u.searchParams.set('token', base.searchParams.get('token') ?? '');
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, String(v));
  const res = await request(u, { headers: { origin: base.origin } });
  const text = await res.body.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  return { status: value === undefined ? -res.statusCode : res.statusCode, value };
}

/** Walks a view's JSON API the way its page does: the overview, each session, each message's
 * root and its nodes (down to NODES_PER_MESSAGE), the last page of a long text. Every answer must
 * be a 200 with JSON. */
export async function walkView(url: string, step: string): Promise<ViewWalk> {
  const base = new URL(url);
  const problems: string[] = [];
  const get = async (path: string, params: Record<string, string | number> = {}): Promise<any> => {
    const r = await getJson(base, path, params);
    if (r.status === 200) return r.value;
    problems.push(`${step}: GET ${path} ${JSON.stringify(params)} answered ${r.status < 0 ? `${-r.status} without JSON` : r.status}`);
    return undefined;
  };
  const overview = await get('api/overview');
  const sessions: { index: number; messages: number }[] = overview?.sessions ?? [];
  for (const s of sessions) {
    const detail = await get('api/session', { i: s.index });
    for (const row of (detail?.rows ?? []) as { seq: number }[]) {
      const pending = [''];
      for (let n = 0; n < NODES_PER_MESSAGE && pending.length > 0; n++) {
        const node = await get('api/node', { i: s.index, seq: row.seq, p: pending.shift()! });
        if (!node) break;
        if (typeof node.text === 'string' && node.total > node.text.length)
          await get('api/node', { i: s.index, seq: row.seq, p: node.pointer, offset: node.total - 1 });
        for (const c of (node.children ?? []) as { pointer: string; type: string }[])
          if (c.type === 'object' || c.type === 'array' || c.type === 'string') pending.push(c.pointer);
      }
    }
  }
  return { problems, messages: sessions.reduce((n, s) => n + s.messages, 0) };
}

/** An OTLP/HTTP receiver (OTLP/JSON, as `record --otel` sends with OTEL_EXPORTER_OTLP_PROTOCOL=
 * http/json): the names of the spans it got. */
export async function startOtlpReceiver(): Promise<{ url: string; spans: string[]; problems: string[]; close(): void }> {
  const spans: string[] = [];
  const problems: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const names = spanNames(Buffer.concat(chunks).toString('utf8'));
        if (typeof names === 'string') problems.push(`record --otel: a trace export that is no OTLP JSON (${names})`);
        else spans.push(...names);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, problems, close: () => server.close() };
}

/** The span names of OTLP JSON text (one TracesData per line), or why it is not OTLP JSON. */
export function spanNames(text: string): string[] | string {
  const names: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const data = JSON.parse(line) as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] };
      for (const r of data.resourceSpans) for (const s of r.scopeSpans) for (const span of s.spans) names.push(span.name);
    } catch (err) {
      return (err as Error).message;
    }
  }
  return names;
}

/** The spans `record --otel` says it lost (dropped on a full queue, in failed exports, still in
 * flight at its end: counted on its last `otel` log line), 0 when it says nothing. */
export function spansLost(stderr: string): number {
  const line = stderr
    .split('\n')
    .filter((l) => l.includes('"otel":{'))
    .pop();
  if (!line) return 0;
  try {
    const { otel } = JSON.parse(line) as { otel: { dropped: number; exportFailed: number; unsent: number } };
    return otel.dropped + otel.exportFailed + otel.unsent;
  } catch {
    return 0;
  }
}

/**
 * Why the span names `record --otel` sent differ from those `export` makes of the cassette, if
 * they do: the same names, once each, but for the `lost` spans `record` counted as lost. `odd`:
 * frames the cassette keeps other than as they crossed (too deep: only their top-level scalars;
 * not UTF-8: bytes, a text frame). For those the live mapping, which saw the frame, and `export`,
 * which reads the cassette, are known to differ (a too-deep tools/call's tool name; a span for a
 * request that is not UTF-8): with any, only the methods are compared, and `record --otel` may
 * have sent at most `odd` spans more.
 */
export function sameSpans(live: string[], exported: string[], odd: number, lost: number): string | undefined {
  const key = (name: string): string => (odd > 0 ? name.split(' ')[0]! : name);
  const left = live.map(key);
  let missing = 0;
  for (const name of exported) {
    const at = left.indexOf(key(name));
    if (at === -1) missing += 1;
    else left.splice(at, 1);
  }
  if (missing === lost && left.length <= odd) return undefined;
  const list = (names: string[]): string => [...names].sort().join(', ').slice(0, 200);
  return `record --otel sent ${String(live.length)} spans [${list(live)}] (${String(lost)} counted lost), export made ${String(exported.length)} [${list(exported)}]`;
}

/** Why the imported cassette does not hold the original's frames (bytes and direction, in
 * order), if it does not. */
export function sameFrames(original: string, imported: string): string | undefined {
  const frames = (path: string): string[] =>
    loadCassette(path).sessions.flatMap((s) => s.messages.map((m) => `${m.direction} ${messageBytes(m).toString('base64')}`));
  const a = frames(original);
  const b = frames(imported);
  const at = a.findIndex((x, i) => x !== b[i]);
  if (a.length === b.length && at === -1) return undefined;
  return `import: ${String(b.length)} frames back from ${String(a.length)} exported, the first difference at frame ${String(at === -1 ? a.length : at)}`;
}

/**
 * A copy of `cassette` as someone could send it: each session renamed (so both can be read as
 * one), its label, peers and header names and values replaced by markup, and violations added
 * whose rule, message, path and spec link are markup or foreign links; all drawn from the case's
 * seed. It stays a valid cassette, so every reader must read it as one.
 */
export function tamper(c: FuzzCase, cassette: string, out: string): void {
  const rnd = mulberry32((c.seed ^ Math.imul(c.index + 7, 0x85ebca6b)) >>> 0);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const value = JSON.parse(readFileSync(cassette, 'utf8')) as { sessions: Record<string, any>[] };
  for (const s of value.sessions) {
    s.id = `${String(s.id)}-tampered ${pick(HOSTILE_MARKUP)}`;
    s.label = pick(HOSTILE_MARKUP);
    s.clientInfo = { name: pick(HOSTILE_MARKUP), version: pick(HOSTILE_MARKUP) };
    s.serverInfo = { name: pick(HOSTILE_MARKUP), version: `${EVIL_ORIGIN}/${pick(HOSTILE_MARKUP)}` };
    for (const x of (s.exchanges ?? []) as Record<string, any>[]) {
      x.requestHeaders = { ...x.requestHeaders, [pick(HOSTILE_MARKUP)]: pick(HOSTILE_MARKUP) };
      x.responseHeaders = { ...x.responseHeaders, link: `<${EVIL_ORIGIN}/style.css>; rel=stylesheet` };
    }
    const seqs = [0, ...(s.messages as { seq: number }[]).map((m) => m.seq)];
    s.violations = [
      ...((s.violations ?? []) as Record<string, unknown>[]).map((v) => ({ ...v, session: s.id })),
      ...HOSTILE_SPECS.map((spec) => ({
        rule: pick(HOSTILE_MARKUP),
        severity: pick(['error', 'warning', 'info']),
        session: s.id,
        seq: pick(seqs),
        direction: pick(['client-to-server', 'server-to-client']),
        path: `/${pick(HOSTILE_MARKUP)}`,
        message: pick(HOSTILE_MARKUP),
        spec,
      })),
    ];
  }
  writeFileSync(out, JSON.stringify(value));
}

/** The live view of `record --ui` once it holds `expected` messages (they reach it a moment after
 * they cross; bounded, not timed), walked. */
export async function walkLive(url: string, expected: number): Promise<ViewWalk> {
  const base = new URL(url);
  let held = 0;
  for (let i = 0; i < 600 && held < expected; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 50));
    const r = await getJson(base, 'api/overview', {}).catch(() => undefined);
    held = ((r?.value?.sessions ?? []) as { messages: number }[]).reduce((n, s) => n + s.messages, 0);
  }
  return walkView(url, 'record --ui').catch((err: Error) => ({ problems: [`record --ui: ${err.message}`], messages: held }));
}

/** `view <paths>`: its URL (first stdout line), its API walked, then SIGTERM. */
async function viewRun(paths: string[]): Promise<{ ran: Ran; walk?: ViewWalk }> {
  let walk: ViewWalk | undefined;
  const ran = await run([cliPath, 'view', ...paths], {}, async (d) => {
    const url = await firstLine(d.child);
    if (!url) return;
    try {
      walk = await walkView(url, 'view').catch((err: Error) => ({ problems: [`view: ${err.message}`], messages: 0 }));
    } finally {
      d.child.kill('SIGTERM');
    }
  });
  return { ran, walk };
}

export interface LaterInput {
  transport: Transport;
  /** Every hostile frame is one JSON value (else a Streamable HTTP body may not import). */
  clean: boolean;
  cassette: string;
  tampered: string;
  dir: string;
  /** Messages the cassette holds. */
  saved: number;
  /** How many of them it keeps other than as they crossed (too deep, not UTF-8). */
  odd: number;
  /** The span names `record --otel` sent for the session, and how many it counted as lost. */
  spans: string[];
  lost: number;
  target: () => Promise<{ args: string[]; stop?: () => void }>;
}

/** view (the cassette and its tampered copy), export (OTLP JSON and HAR, of both), import of the
 * HAR, and check against the same hostile server: their failures. */
export async function laterReaders(x: LaterInput): Promise<string[]> {
  const failures: string[] = [];
  const har = join(x.dir, 'fuzz.har');
  const imported = join(x.dir, 'imported.cassette.json');
  const sarif = join(x.dir, 'check.sarif');
  const [view, otlp, exported, tamperedHar, tamperedOtlp, checked] = await Promise.all([
    viewRun([x.cassette, x.tampered]),
    run([cliPath, 'export', x.cassette, '--format', 'otlp-json'], {}),
    run([cliPath, 'export', x.cassette, '--format', 'har', '--output', har], {}).then(async (ran) => ({
      ran,
      back: ran.code === 0 ? await run([cliPath, 'import', '--from', 'har', har, '--output', imported], {}) : undefined,
    })),
    run([cliPath, 'export', x.tampered, '--format', 'har'], {}),
    run([cliPath, 'export', x.tampered, '--format', 'otlp-json', '--include-payloads'], {}),
    x.target().then(async (t) => {
      try {
        return await run([cliPath, 'check', '--cassettes', x.cassette, '--timeout', '10000', '--sarif', sarif, ...t.args], {
          FUZZ_ECHO_ID: '1',
        });
      } finally {
        t.stop?.();
      }
    }),
  ]);
  if (check(failures, 'view', view.ran, [0]) && view.walk) {
    failures.push(...view.walk.problems);
    if (view.walk.messages !== 2 * x.saved)
      failures.push(`view: ${String(view.walk.messages)} messages shown for the ${String(2 * x.saved)} of the cassette and its copy`);
  }
  if (check(failures, 'export (otlp-json)', otlp, [0])) {
    const names = spanNames(otlp.stdout.toString('utf8'));
    if (typeof names === 'string') failures.push(`export (otlp-json): stdout is not OTLP JSON (${names})`);
    else {
      const differ = sameSpans(x.spans, names, x.odd, x.lost);
      if (differ) failures.push(differ);
    }
  }
  if (check(failures, 'export (har)', exported.ran, [0]) && exported.back) {
    // A stdio cassette exports stdio:// entries, which import refuses (MCPC_HAR_NO_MCP); a
    // Streamable HTTP body that is no JSON reads as cut short (MCPC_HAR_TRUNCATED).
    const allowed = x.transport === 'stdio' ? [2] : x.clean ? [0] : [0, 2];
    if (check(failures, 'import --from har', exported.back, allowed)) {
      if (exported.back.code === 2 && !/no MCP exchange|cut short|not whole JSON|truncated/i.test(exported.back.stderr))
        failures.push(`import --from har: exit 2 without a documented reason — stderr: ${exported.back.stderr.trim().slice(0, 300)}`);
      if (exported.back.code === 0) {
        const differ = sameFrames(x.cassette, imported);
        if (differ) failures.push(differ);
      }
    }
  }
  if (check(failures, 'export (har) of the tampered copy', tamperedHar, [0]))
    parses(failures, 'export (har) of the tampered copy', tamperedHar.stdout);
  if (check(failures, 'export (otlp-json) of the tampered copy', tamperedOtlp, [0])) {
    const names = spanNames(tamperedOtlp.stdout.toString('utf8'));
    if (typeof names === 'string') failures.push(`export (otlp-json) of the tampered copy: not OTLP JSON (${names})`);
  }
  // Against the same hostile server: differences and violations (exit 1) are findings.
  if (check(failures, 'check', checked, [0, 1]) && existsSync(sarif)) parses(failures, 'check (sarif)', readFileSync(sarif));
  return failures;
}

export function parses(failures: string[], step: string, out: Buffer): void {
  try {
    JSON.parse(out.toString('utf8'));
  } catch {
    failures.push(`${step}: not JSON`);
  }
}
