/**
 * What the view's page shows of a cassette, computed on the server: one summary per session and,
 * per session, one row per message (requests paired with their answers, latency, the violations on
 * each message) and the HTTP exchanges. Message bodies stay on the server; the page asks for the
 * parts it opens (json-node.ts), so a 50 MB message never crosses whole.
 */
import type { HttpExchange, RecordedSession } from '../cassette/cassette.js';
import type { RecordedMessage } from '../message.js';
import { isObject } from '../plain-object.js';
import { specLinkFor } from '../spec-pages.js';
import type { Violation } from '../violation.js';
import { markMaskedEvidence, type Verdict } from '../cassette/masked-verdicts.js';

export interface SessionView {
  index: number;
  id: string;
  label?: string;
  transport: string;
  revision?: string;
  era?: string;
  client?: string;
  server?: string;
  target: string;
  startedAt: string;
  durationMs?: number;
  end?: string;
  messages: number;
  counts: Record<string, number>;
  /** Undefined when the session was recorded without live validation. */
  violations?: number;
  errors?: number;
}

export interface ViolationView {
  rule: string;
  severity: Violation['severity'];
  seq: number;
  path: string;
  message: string;
  spec: string;
  /** The live validator saw it, and the message holds its evidence masked (the page says "seen
   * live; evidence masked"). */
  evidence?: 'masked';
}

export interface MessageRow {
  seq: number;
  t: number;
  direction: Violation['direction'];
  channel: RecordedMessage['channel'];
  kind: RecordedMessage['kind'];
  bytes: number;
  method?: string;
  id?: string;
  /** tools/call: the tool's name; prompts/get: the prompt's. */
  name?: string;
  /** A request the server sent to the client (sampling, elicitation, roots, ping). */
  serverRequest?: true;
  /** The seq of the answer (on a request) or of the request (on an answer). */
  pair?: number;
  latencyMs?: number;
  exchange?: number;
  part?: string;
  preview: string;
  violations: ViolationView[];
}

export interface SessionDetail {
  session: SessionView;
  rows: MessageRow[];
  exchanges: HttpExchange[];
  /** Violations not tied to one message of the session (seq 0 or a seq it does not hold). */
  loose: ViolationView[];
}

const PREVIEW = 160;

function peer(p?: { name?: string; version?: string }): string | undefined {
  return p?.name ? `${p.name}${p.version ? ` ${p.version}` : ''}` : undefined;
}

export function sessionView(s: RecordedSession, index: number): SessionView {
  const counts: Record<string, number> = {};
  for (const m of s.messages) {
    const key = m.channel === 'stderr' ? 'stderr' : m.kind;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  const client = peer(s.clientInfo);
  const server = peer(s.serverInfo);
  return {
    index,
    id: s.id,
    ...(s.label ? { label: s.label } : {}),
    transport: s.transport,
    ...(s.protocol.revision ? { revision: s.protocol.revision } : {}),
    ...(s.protocol.era ? { era: s.protocol.era } : {}),
    ...(client ? { client } : {}),
    ...(server ? { server } : {}),
    target: 'command' in s.target ? s.target.command.join(' ') : `${s.target.listen} -> ${s.target.url}`,
    startedAt: s.startedAt,
    ...(s.durationMs !== undefined ? { durationMs: s.durationMs } : {}),
    ...(s.end ? { end: s.end.signal ? `signal ${s.end.signal}` : `${s.end.reason} ${String(s.end.exitCode ?? '')}`.trim() } : {}),
    messages: s.messages.length,
    counts,
    ...(s.violations ? { violations: s.violations.length, errors: s.violations.filter((v) => v.severity === 'error').length } : {}),
  };
}

/** A short text of a value, walking no further than `max` characters (a 50 MB message is never
 * stringified whole for its preview). */
export function previewOf(value: unknown, max = PREVIEW): string {
  let out = '';
  const walk = (v: unknown): void => {
    if (out.length >= max) return;
    if (Array.isArray(v)) {
      out += '[';
      for (let i = 0; i < v.length && out.length < max; i++) {
        if (i) out += ',';
        walk(v[i]);
      }
      out += ']';
    } else if (isObject(v)) {
      out += '{';
      let first = true;
      for (const k in v) {
        if (out.length >= max) break;
        if (!first) out += ',';
        first = false;
        out += JSON.stringify(k) + ':';
        walk(v[k]);
      }
      out += '}';
    } else if (typeof v === 'string') {
      out += JSON.stringify(v.length > max ? v.slice(0, max) : v);
    } else out += String(JSON.stringify(v) ?? v);
  };
  walk(value);
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

function messagePreview(m: RecordedMessage): string {
  if (m.rawBase64 !== undefined) return `<${m.bytes} bytes, not UTF-8>`;
  if (m.json === undefined || m.tooDeep) {
    const raw = m.raw ?? '';
    return raw.length > PREVIEW ? `${raw.slice(0, PREVIEW - 1)}…` : raw;
  }
  return previewOf(m.json);
}

function rowOf(m: RecordedMessage): MessageRow {
  const j = isObject(m.json) ? m.json : undefined;
  const method = typeof j?.method === 'string' ? j.method : undefined;
  const params = isObject(j?.params) ? j.params : undefined;
  const name =
    method && (method === 'tools/call' || method === 'prompts/get') && typeof params?.name === 'string' ? params.name : undefined;
  const id = j && 'id' in j && (typeof j.id === 'string' || typeof j.id === 'number') ? JSON.stringify(j.id) : undefined;
  return {
    seq: m.seq,
    t: m.t,
    direction: m.direction,
    channel: m.channel,
    kind: m.kind,
    bytes: m.bytes,
    ...(method ? { method } : {}),
    ...(id !== undefined ? { id } : {}),
    ...(name ? { name } : {}),
    ...(m.kind === 'request' && m.direction === 'server-to-client' ? { serverRequest: true as const } : {}),
    ...(m.http ? { exchange: m.http.exchange, part: m.http.part } : {}),
    preview: messagePreview(m),
    violations: [],
  };
}

/** Pairs each request with the first answer of the same id going the other way. The answer
 * carries its request's method and tool name, so filters find both. */
function pair(rows: MessageRow[]): void {
  const open = new Map<string, MessageRow>();
  for (const r of rows) {
    if (r.id === undefined) continue;
    if (r.kind === 'request') open.set(`${r.direction}:${r.id}`, r);
    else if (r.kind === 'response' || r.kind === 'error') {
      const key = `${r.direction === 'client-to-server' ? 'server-to-client' : 'client-to-server'}:${r.id}`;
      const req = open.get(key);
      if (!req) continue;
      open.delete(key);
      req.pair = r.seq;
      r.pair = req.seq;
      req.latencyMs = r.latencyMs = Math.max(0, r.t - req.t);
      if (req.method) r.method = req.method;
      if (req.name) r.name = req.name;
    }
  }
}

export function violationView(v: Verdict, revision: string | undefined): ViolationView {
  return {
    rule: v.rule,
    severity: v.severity,
    seq: v.seq,
    path: v.path,
    message: v.message,
    spec: specLinkFor(v.spec, revision),
    ...(v.evidence ? { evidence: v.evidence } : {}),
  };
}

export function rowsOf(messages: readonly RecordedMessage[]): MessageRow[] {
  const rows = messages.map(rowOf);
  pair(rows);
  return rows;
}

/** Puts each violation on its message's row; returns those that have no row. */
export function attachViolations(rows: MessageRow[], violations: readonly ViolationView[]): ViolationView[] {
  const bySeq = new Map(rows.map((r) => [r.seq, r]));
  const loose: ViolationView[] = [];
  for (const v of violations) {
    const row = bySeq.get(v.seq);
    if (row) row.violations.push(v);
    else loose.push(v);
  }
  return loose;
}

export function sessionDetail(s: RecordedSession, index: number): SessionDetail {
  const rows = rowsOf(s.messages);
  const loose = attachViolations(
    rows,
    markMaskedEvidence(s.messages, s.violations ?? []).map((v) => violationView(v, s.protocol.revision)),
  );
  return { session: sessionView(s, index), rows, exchanges: s.exchanges ?? [], loose };
}
