import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { basename } from 'node:path';
import type { RecordedSession } from '../../cassette/cassette.js';
import { foldHttpJournal } from '../../cassette/fold-http.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalRecord, type ParsedJournal } from '../../cassette/journal.js';
import { redactHeaderValues, redactRequestTarget } from '../../redact.js';
import { maskSecretsInBytes } from '../../secret-text.js';
import { packageVersion } from '../../version.js';
import { type HarMcpEntry, readHar } from './har-read.js';
import { sseEventText } from './sse-text.js';

export interface HarImport {
  sessions: RecordedSession[];
  /** MCP exchanges taken, and entries left out as not MCP. */
  exchanges: number;
  skipped: number;
}

const OUTCOMES = new Set(['complete', 'client-aborted', 'upstream-error', 'refused', 'continued']);

/**
 * A HAR capture of Streamable HTTP traffic as cassette sessions. The MCP entries (har-read.ts)
 * are written as the journal a recording proxy would have written for them (request head and
 * body, response head, body chunks or SSE events at their times, end) and folded by the same
 * fold as a recording (lib/cassette/fold-http.ts): exchanges with one Mcp-Session-Id make one
 * session, every other exchange a session of its own, and messages, SSE fields and protocol
 * facts come out exactly as for a recording. Like `record`, it masks secret headers and
 * credential shapes in bodies before anything is kept.
 */
export function importHar(file: string, text: string, label?: string): HarImport {
  const { entries, skipped } = readHar(file, text);
  entries.sort((a, b) => a.start - b.start);
  const t0 = Math.floor(entries[0]!.start);
  const at = (epochMs: number): number => Math.round((epochMs - t0) * 1000) / 1000;
  const records: JournalRecord[] = [];
  entries.forEach((e, i) => records.push(...exchangeRecords(e, i + 1, at)));
  // The journal is in time order, as a proxy writes it; within an exchange the order above stands.
  records.sort((a, b) => a.t - b.t);
  const endpoint = entries.find((e) => e.method === 'POST') ?? entries[0]!;
  const url = endpoint.url.origin + endpoint.url.pathname;
  const journal: ParsedJournal = {
    header: {
      format: JOURNAL_FORMAT,
      version: JOURNAL_VERSION,
      sessionId: randomUUID(),
      startedAt: new Date(t0).toISOString(),
      pid: process.pid,
      hostname: hostname(),
      session: {
        transport: 'streamable-http',
        label: label ?? `imported from ${basename(file)}`,
        target: { url, listen: url },
        proxy: { pid: process.pid, version: packageVersion() },
      },
    },
    records,
    torn: false,
  };
  return { sessions: foldHttpJournal(journal), exchanges: entries.length, skipped };
}

function exchangeRecords(e: HarMcpEntry, x: number, at: (epochMs: number) => number): JournalRecord[] {
  const out: JournalRecord[] = [];
  // Times only move forward within an exchange, whatever the HAR's timings say.
  let last = at(e.start);
  const when = (epochMs: number): number => (last = Math.max(last, at(epochMs)));
  out.push({
    t: last,
    ev: 'http-request',
    x,
    method: e.method,
    path: redactRequestTarget(e.url.pathname + e.url.search),
    headers: redactHeaderValues(e.requestHeaders),
    mcp: true,
  });
  const sent = when(e.sent);
  if (e.requestBody && e.requestBody.length > 0) out.push({ t: sent, c: 'http-request', x, data: maskSecretsInBytes(e.requestBody).data });
  out.push({ t: sent, ev: 'http-request-end', x });
  const outcome = e.outcome && OUTCOMES.has(e.outcome) ? e.outcome : e.status === undefined ? 'upstream-error' : 'complete';
  if (e.status !== undefined) {
    out.push({ t: when(e.head), ev: 'http-response', x, status: e.status, headers: redactHeaderValues(e.responseHeaders) });
    for (const ev of e.events ?? []) {
      const data = sseEventText({ ...ev, data: ev.data });
      out.push({
        t: when(Math.min(ev.at ?? e.end, e.end)),
        c: 'http-response',
        x,
        data: maskSecretsInBytes(Buffer.from(data, 'utf8')).data,
      });
    }
    if (e.body && e.body.length > 0) out.push({ t: when(e.end), c: 'http-response', x, data: maskSecretsInBytes(e.body).data });
  }
  out.push({
    t: when(e.end),
    ev: 'http-end',
    x,
    outcome,
    ...(e.error ? { error: e.error } : outcome === 'upstream-error' ? { error: 'the HAR holds no response' } : {}),
  });
  return out;
}
