import { CassetteError } from '../../errors.js';
import { isObject } from '../../plain-object.js';
import { epochMs } from './har-types.js';

/**
 * Reads a HAR file for `import --from har`: checks that it is HAR, picks the entries that are
 * MCP traffic over Streamable HTTP and takes their bodies and times out, or fails naming the
 * entry, the problem and the fix. What becomes of them is import-har.ts's business.
 */
export interface HarMcpEntry {
  /** 1-based position in the file, for messages. */
  n: number;
  method: string;
  url: URL;
  /** Lowercase names, as the recorder stores them; HTTP/2 pseudo-headers left out. */
  requestHeaders: Record<string, string | string[]>;
  requestBody?: Buffer;
  /** Epoch milliseconds: the request started, its body was sent, the response head came, it ended. */
  start: number;
  sent: number;
  head: number;
  end: number;
  status?: number;
  responseHeaders: Record<string, string | string[]>;
  /** A JSON (or other) response body, or the events of an event stream with their times. */
  body?: Buffer;
  events?: { at?: number; data: string; id?: string; event?: string; retry?: number }[];
  /** Our own export says how the exchange ended (`_mcpCassette.outcome`); else from the status. */
  outcome?: string;
  error?: string;
}

export interface HarRead {
  entries: HarMcpEntry[];
  /** Entries that are not MCP traffic (other requests of the page, CORS preflights). */
  skipped: number;
}

const JSON_RPC_HINT = /"jsonrpc"\s*:/;

type Json = Record<string, unknown>;

export function readHar(file: string, text: string): HarRead {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CassetteError(
      'MCPC_HAR_INVALID',
      `${file} is not JSON (${(err as Error).message}); give a .har file as a browser saves it (Network panel, "Save all as HAR") or as \`mcp-cassette export --format har\` writes it`,
      { cause: err },
    );
  }
  const log = isObject(value) ? value.log : undefined;
  if (!isObject(log) || !Array.isArray(log.entries)) {
    throw new CassetteError(
      'MCPC_HAR_INVALID',
      `${file} is JSON but not HAR: it has no log.entries list; give a .har file as a browser saves it (Network panel, "Save all as HAR")`,
    );
  }
  const raw = log.entries.map((e, i) => shape(file, e, i + 1));
  const endpoints = new Set<string>();
  const mcp = new Set<number>();
  let stdio = 0;
  for (const e of raw) {
    if (e.url.protocol === 'stdio:') stdio++;
    else if (firstPass(e)) {
      mcp.add(e.n);
      endpoints.add(e.url.origin + e.url.pathname);
    }
  }
  // A GET (the listen stream), a DELETE (the session end) or a POST whose body the capture left
  // out, to a known endpoint, is MCP too.
  for (const e of raw) {
    if (!mcp.has(e.n) && ['GET', 'DELETE', 'POST'].includes(e.method) && endpoints.has(e.url.origin + e.url.pathname)) mcp.add(e.n);
  }
  if (mcp.size === 0) {
    const why =
      stdio > 0 && stdio === raw.length
        ? 'it was exported from a stdio cassette (stdio:// entries), and import reads Streamable HTTP captures; the stdio cassette itself is the recording'
        : "capture the MCP endpoint's traffic with its bodies (a POST with a JSON-RPC body, or requests carrying Mcp-Session-Id or MCP-Protocol-Version)";
    throw new CassetteError(
      'MCPC_HAR_NO_MCP',
      `${file} holds ${raw.length} entr${raw.length === 1 ? 'y' : 'ies'} and no MCP exchange; ${why}`,
    );
  }
  const entries = raw.filter((e) => mcp.has(e.n)).map((e) => bodies(file, e));
  return { entries, skipped: raw.length - entries.length };
}

interface Shaped {
  n: number;
  entry: Json;
  method: string;
  url: URL;
  requestHeaders: Record<string, string | string[]>;
  responseHeaders: Record<string, string | string[]>;
  requestText?: string;
  start: number;
}

function shape(file: string, e: unknown, n: number): Shaped {
  const bad = (what: string): CassetteError =>
    new CassetteError('MCPC_HAR_INVALID', `${file} is not valid HAR: entry ${n} ${what}; fix the file or save the HAR again`);
  if (!isObject(e) || !isObject(e.request) || !isObject(e.response)) throw bad('has no request or response object');
  const req = e.request;
  if (typeof req.method !== 'string' || typeof req.url !== 'string') throw bad('has no request method or url');
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    throw bad(`has a request url that is not a URL (${JSON.stringify(req.url)})`);
  }
  const start = typeof e.startedDateTime === 'string' ? epochMs(e.startedDateTime) : Number.NaN;
  if (Number.isNaN(start)) throw bad('has no valid startedDateTime');
  const post = isObject(req.postData) ? req.postData : undefined;
  return {
    n,
    entry: e,
    method: req.method.toUpperCase(),
    url,
    requestHeaders: headers(req.headers),
    responseHeaders: headers(e.response.headers),
    ...(typeof post?.text === 'string' ? { requestText: post.text } : {}),
    start,
  };
}

function headers(list: unknown): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!Array.isArray(list)) return out;
  for (const h of list) {
    if (!isObject(h) || typeof h.name !== 'string' || h.name.startsWith(':')) continue;
    const name = h.name.toLowerCase();
    const value = String(h.value ?? '');
    const had = out[name];
    out[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  return out;
}

const first = (h: Record<string, string | string[]>, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/** MCP by its body (a JSON-RPC message or batch, or something that tries to be one) or its
 * headers (Mcp-Session-Id, MCP-Protocol-Version). */
function firstPass(e: Shaped): boolean {
  if (e.method === 'OPTIONS') return false;
  if (first(e.requestHeaders, 'mcp-session-id') || first(e.responseHeaders, 'mcp-session-id')) return true;
  if (first(e.requestHeaders, 'mcp-protocol-version')) return true;
  return e.method === 'POST' && e.requestText !== undefined && JSON_RPC_HINT.test(e.requestText);
}

function bodies(file: string, e: Shaped): HarMcpEntry {
  const where = `entry ${e.n} (${e.method} ${e.url.href})`;
  const cut = (problem: string, fix: string): CassetteError =>
    new CassetteError('MCPC_HAR_TRUNCATED', `${file}: ${where} ${problem}; ${fix}`);
  const SAVE_AGAIN = 'save the HAR again once the requests have finished, with their content (browsers leave out bodies they did not keep)';
  if (e.method === 'POST') {
    if (e.requestText === undefined) throw cut('has no request body (postData.text)', SAVE_AGAIN);
    try {
      JSON.parse(e.requestText);
    } catch {
      throw cut(`has a request body that is not whole JSON (${Buffer.byteLength(e.requestText)} bytes)`, SAVE_AGAIN);
    }
  }
  const res = e.entry.response as Json;
  const content = isObject(res.content) ? res.content : {};
  const status = typeof res.status === 'number' && res.status > 0 ? res.status : undefined;
  const t = isObject(e.entry.timings) ? e.entry.timings : {};
  const num = (v: unknown): number => (typeof v === 'number' && v > 0 ? v : 0);
  const pre = num(t.blocked) + num(t.dns) + num(t.connect);
  const sent = e.start + pre + num(t.send);
  const head = sent + num(t.wait);
  const end = Math.max(head + num(t.receive), e.start + num(e.entry.time));
  const ours = isObject(e.entry._mcpCassette) ? e.entry._mcpCassette : {};
  const out: HarMcpEntry = {
    n: e.n,
    method: e.method,
    url: e.url,
    requestHeaders: e.requestHeaders,
    ...(e.requestText !== undefined ? { requestBody: Buffer.from(e.requestText, 'utf8') } : {}),
    start: e.start,
    sent,
    head,
    end,
    ...(status !== undefined ? { status } : {}),
    responseHeaders: e.responseHeaders,
    ...(typeof ours.outcome === 'string' ? { outcome: ours.outcome } : {}),
    ...(typeof ours.error === 'string' ? { error: ours.error } : typeof res._error === 'string' && res._error ? { error: res._error } : {}),
  };
  if (status === undefined) return out;
  const mime = String(content.mimeType ?? first(e.responseHeaders, 'content-type') ?? '').toLowerCase();
  const text = typeof content.text === 'string' ? content.text : undefined;
  const body = text === undefined ? undefined : content.encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  const size = typeof content.size === 'number' ? content.size : -1;
  if (body && size > body.length && !Array.isArray(e.entry._eventSourceMessages))
    throw cut(`has a response body of ${body.length} bytes where content.size says ${size}: it was cut short`, SAVE_AGAIN);
  const asksAnswer = e.method === 'POST' && /"id"\s*:/.test(e.requestText ?? '') && status === 200;
  if (mime.startsWith('text/event-stream')) {
    const events = eventSourceMessages(e.entry._eventSourceMessages);
    if (events) out.events = events;
    else if (body) {
      const tail =
        body
          .toString('utf8')
          .split(/\r\n\r\n|\n\n|\r\r/)
          .at(-1) ?? '';
      if (/^data:/m.test(tail))
        throw cut('has an event stream whose last event never ended (no blank line after it): it was cut short', SAVE_AGAIN);
      out.body = body;
    } else if (asksAnswer) throw cut('has an event-stream response with neither content.text nor _eventSourceMessages', SAVE_AGAIN);
    return out;
  }
  if (!body) {
    if (asksAnswer) throw cut('has no response body (content.text) for a JSON-RPC request', SAVE_AGAIN);
    return out;
  }
  if (mime.includes('json')) {
    try {
      JSON.parse(body.toString('utf8'));
    } catch {
      throw cut(`has a JSON response body that is not whole JSON (${body.length} bytes)`, SAVE_AGAIN);
    }
  }
  out.body = body;
  return out;
}

/** `_eventSourceMessages` (type or eventName, time in seconds, eventId, data), when present. */
function eventSourceMessages(v: unknown): HarMcpEntry['events'] | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  return v.filter(isObject).map((m) => {
    const name = typeof m.type === 'string' ? m.type : typeof m.eventName === 'string' ? m.eventName : undefined;
    const time = typeof m.time === 'number' ? m.time : undefined;
    return {
      data: typeof m.data === 'string' ? m.data : '',
      // Seconds since the epoch (as DevTools writes WebSocket frame times); a value too large for
      // seconds is taken as milliseconds.
      ...(time !== undefined ? { at: time > 1e11 ? time : time * 1000 } : {}),
      ...(typeof m.eventId === 'string' && m.eventId !== '' ? { id: m.eventId } : {}),
      ...(name !== undefined ? { event: name } : {}),
    };
  });
}
