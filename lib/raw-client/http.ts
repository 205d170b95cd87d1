/**
 * A raw Streamable HTTP exchange (undici): any method, any headers (or none), any body, and the
 * answer read whole, as JSON or as an SSE stream whose events are parsed one by one. Nothing is
 * corrected or added except what is asked for, so probes can send exactly the defect they test.
 * Every request has a deadline; a stream still open at the deadline (or once the response with
 * `untilId` arrived) is cut, never waited on.
 */
import { parseMessageText } from '../json-depth.js';
import { Agent, request, type Dispatcher } from 'undici';
import { SseSplitter } from '../framing/sse-splitter.js';

export interface RawHttpRequest {
  url: string;
  method?: 'POST' | 'GET' | 'DELETE';
  headers?: Record<string, string>;
  /** A string is sent as it is; anything else as JSON. */
  body?: unknown;
  timeoutMs: number;
  /** The connection pool to use; a fresh `Agent` means a fresh TCP connection. */
  dispatcher?: Dispatcher;
  /** Stop reading an SSE stream once the JSON-RPC response with this id arrived. */
  untilId?: unknown;
  /** Only the status and headers matter (a GET that may open an endless stream). */
  headersOnly?: boolean;
}

export interface RawHttpResponse {
  status?: number;
  headers: Record<string, string>;
  contentType?: string;
  /** JSON-RPC messages of the body: the JSON body, or each SSE event's data that parsed. */
  messages: unknown[];
  /** The body when it was not JSON (first 2000 characters). */
  text?: string;
  /** The exact text of each JSON-RPC frame: the JSON body, or each SSE event's data (the fuzzer
   * keeps them in the cassettes it writes). */
  frames: { text: string; part: 'response' | 'sse'; sse?: { id?: string; event?: string } }[];
  timedOut: boolean;
  /** The server could not be reached, or the response broke off. */
  error?: string;
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function hasId(m: unknown, id: unknown): boolean {
  return (
    m !== null &&
    typeof m === 'object' &&
    !('method' in m) &&
    JSON.stringify((m as { id?: unknown }).id ?? null) === JSON.stringify(id ?? null)
  );
}

/** A pool with one connection: requests sent through it share a TCP connection, like a client's. */
export function freshConnection(): Agent {
  return new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 10_000 });
}

export async function rawHttp(req: RawHttpRequest): Promise<RawHttpResponse> {
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, req.timeoutMs);
  const out: RawHttpResponse = { headers: {}, messages: [], frames: [], timedOut: false };
  try {
    const res = await request(req.url, {
      method: req.method ?? 'POST',
      headers: req.headers ?? {},
      ...(req.body !== undefined ? { body: typeof req.body === 'string' ? req.body : JSON.stringify(req.body) } : {}),
      signal: abort.signal,
      ...(req.dispatcher ? { dispatcher: req.dispatcher } : {}),
    });
    out.status = res.statusCode;
    out.headers = flatHeaders(res.headers);
    out.contentType = out.headers['content-type'];
    if (req.headersOnly) {
      abort.abort();
      await res.body.dump().catch(() => {});
      return out;
    }
    if ((out.contentType ?? '').includes('text/event-stream')) {
      let done = false;
      const splitter = new SseSplitter((event) => {
        if (!event.hasData || event.data.trim() === '') return;
        out.frames.push({
          text: event.data,
          part: 'sse',
          ...(event.id !== undefined || event.event !== undefined
            ? { sse: { ...(event.id !== undefined ? { id: event.id } : {}), ...(event.event !== undefined ? { event: event.event } : {}) } }
            : {}),
        });
        try {
          const json = parseMessageText(event.data);
          out.messages.push(json);
          if (req.untilId !== undefined && hasId(json, req.untilId)) done = true;
        } catch {
          out.text = (out.text ?? '') + event.data.slice(0, 2000);
        }
      });
      for await (const chunk of res.body) {
        splitter.push(chunk as Buffer);
        if (done) break;
      }
      if (done) abort.abort();
      else splitter.end();
    } else {
      const text = await res.body.text();
      if (text.trim() !== '') {
        out.frames.push({ text, part: 'response' });
        try {
          out.messages.push(parseMessageText(text));
        } catch {
          out.text = text.slice(0, 2000);
        }
      }
    }
  } catch (err) {
    if (timedOut) out.timedOut = true;
    else if (!abort.signal.aborted) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
      out.error = `${(err as Error).message}${cause ? ` (${cause})` : ''}`;
    }
  } finally {
    clearTimeout(timer);
  }
  return out;
}
