import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionContext } from 'ava';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { SseSplitter } from '../../lib/framing/sse-splitter.js';
import { messageBytes } from '../../lib/message.js';

export interface TappedExchange {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  readonly requestBody: Buffer;
  status?: number;
  readonly responseBody: Buffer;
  ended: boolean;
  closedEarly?: boolean;
}

function exchangeBytes(list: Buffer[]): Buffer {
  return Buffer.concat(list);
}

/**
 * An upstream HTTP server in the test process that records the exact bytes it received and
 * wrote, per exchange, around any node-style handler (the SDK's toNodeHandler, a raw handler).
 */
export async function startTappedUpstream(t: ExecutionContext, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const exchanges: TappedExchange[] = [];
  const server = createServer((req, res) => {
    const inChunks: Buffer[] = [];
    const outChunks: Buffer[] = [];
    // Joined on read: concatenating on every write would be quadratic for long streams.
    const ex: TappedExchange = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      ended: false,
      get requestBody() {
        return exchangeBytes(inChunks);
      },
      get responseBody() {
        return exchangeBytes(outChunks);
      },
    };
    exchanges.push(ex);
    // Observe the body without consuming it: the handler reads the request its own way.
    const emit = req.emit.bind(req) as (event: string | symbol, ...args: unknown[]) => boolean;
    req.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event === 'data') {
        inChunks.push(Buffer.from(args[0] as Uint8Array));
      }
      return emit(event, ...args);
    }) as typeof req.emit;
    const write = res.write.bind(res) as (...a: unknown[]) => boolean;
    const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    const keep = (chunk: unknown, enc?: unknown): void => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      outChunks.push(
        typeof chunk === 'string'
          ? Buffer.from(chunk, (typeof enc === 'string' ? enc : 'utf8') as BufferEncoding)
          : Buffer.from(chunk as Uint8Array),
      );
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      ex.ended = true;
      return end(chunk, ...rest);
    }) as typeof res.end;
    res.on('finish', () => {
      ex.status = res.statusCode;
    });
    res.on('close', () => {
      ex.status = res.statusCode;
      if (!ex.ended) ex.closedEarly = true;
    });
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  t.teardown(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url, exchanges, server };
}

export interface ClientExchange {
  method: string;
  requestBody: Buffer;
  status: number;
  responseBody: Buffer;
  done: Promise<void>;
}

/** A fetch for SDK client transports that keeps the exact bytes the client sent and received. */
export function tappedFetch(): { fetch: typeof fetch; exchanges: ClientExchange[] } {
  const exchanges: ClientExchange[] = [];
  const wrapped = (async (input: string | URL | Request, init?: RequestInit) => {
    const body = init?.body;
    const requestBody = typeof body === 'string' ? Buffer.from(body) : body instanceof Uint8Array ? Buffer.from(body) : Buffer.alloc(0);
    const response = await fetch(input, init);
    const ex: ClientExchange = {
      method: (init?.method ?? 'GET').toUpperCase(),
      requestBody,
      status: response.status,
      responseBody: Buffer.alloc(0),
      done: Promise.resolve(),
    };
    exchanges.push(ex);
    if (!response.body) return response;
    // Pass the body through a stream that records each chunk; cancelling it (a client that is
    // done with an SSE stream) cancels the real body, as it would without the tap.
    const reader = response.body.getReader();
    const chunks: Buffer[] = [];
    let finish!: () => void;
    ex.done = new Promise<void>((r) => (finish = r));
    // A client that aborts its request without ever reading the body (a GET stream at close).
    init?.signal?.addEventListener('abort', () => finish());
    Object.defineProperty(ex, 'responseBody', { get: () => Buffer.concat(chunks) });
    const theirs = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            finish();
            controller.close();
            return;
          }
          chunks.push(Buffer.from(value));
          controller.enqueue(value);
        } catch (err) {
          finish();
          controller.error(err);
        }
      },
      async cancel(reason) {
        finish();
        await reader.cancel(reason);
      },
    });
    return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
  }) as typeof fetch;
  return { fetch: wrapped, exchanges };
}

/**
 * The HTTP transparency check: every request body reached the upstream unchanged, every response
 * body the upstream wrote reached the client unchanged (a stream the client closed early: what it
 * got is a prefix of what was written), and the cassette holds each JSON-RPC message with the same
 * bytes, SSE events included.
 */
export async function assertHttpTransparent(
  t: ExecutionContext,
  client: ClientExchange[],
  upstream: TappedExchange[],
  cassette: Cassette,
): Promise<void> {
  await Promise.all(client.map((c) => c.done));
  t.true(client.length > 0, 'the client made requests');
  const pool = [...upstream];
  for (const c of client) {
    const i = pool.findIndex((u) => u.method === c.method && u.requestBody.equals(c.requestBody));
    t.true(i !== -1, `${c.method} ${c.requestBody.toString().slice(0, 80)} reached the upstream byte for byte`);
    if (i === -1) continue;
    const u = pool.splice(i, 1)[0]!;
    t.is(c.status, u.status ?? c.status, 'same status');
    if (u.ended && !u.closedEarly)
      t.true(c.responseBody.equals(u.responseBody), `${c.method}: the client got exactly what the upstream wrote`);
    else
      t.true(u.responseBody.subarray(0, c.responseBody.length).equals(c.responseBody), `${c.method}: an early-closed stream is a prefix`);
  }
  const exchanges = cassette.sessions.flatMap((s) => (s.exchanges ?? []).map((x) => ({ s, x })));
  for (const u of upstream.filter((e) => e.ended && !e.closedEarly)) {
    const match = exchanges.find(
      ({ s, x }) =>
        x.method === u.method &&
        x.status === u.status &&
        (u.requestBody.length === 0 ||
          s.messages.some((m) => m.http?.exchange === x.id && m.http.part === 'request' && messageBytes(m).equals(u.requestBody))),
    );
    t.truthy(match, `the cassette has the ${u.method} exchange`);
    if (!match) continue;
    const { s, x } = match;
    const mine = s.messages.filter((m) => m.http?.exchange === x.id && m.direction === 'server-to-client');
    if ((x.contentType ?? '').startsWith('text/event-stream')) {
      const events: string[] = [];
      const splitter = new SseSplitter((e) => events.push(e.data));
      splitter.push(u.responseBody);
      splitter.end();
      t.deepEqual(
        mine.map((m) => messageBytes(m).toString('utf8')),
        events,
        'every SSE event is in the cassette, in order, byte for byte',
      );
    } else if (u.responseBody.length > 0 && x.mcp) {
      t.is(mine.length, 1);
      t.true(messageBytes(mine[0]!).equals(u.responseBody), 'the JSON response body is in the cassette byte for byte');
    }
  }
}
