/**
 * A POST to `serve --listen`: client answers and notifications are delivered, and requests are
 * played from the cassette. A batch gets one JSON array (or an SSE stream when frames come before
 * the answers); one request gets JSON, or an SSE stream when its recording was one or frames come
 * before its answer. An `initialize` without a session may open one (a stateful recording).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { messageText, parseMessageText } from '../../lib/json-depth.js';
import { classify } from '../../lib/message.js';
import type { HttpSessions } from './http-sessions.js';
import { forwardedHeaders, JSON_TYPE, jsonError, readBody, sseEvent } from './http-wire.js';
import type { Json } from './interactions.js';
import type { LiveSession, Outlet } from './live-session.js';

/** What the requests of one POST are answered with. */
interface Post {
  s: HttpSessions;
  req: IncomingMessage;
  res: ServerResponse;
  live: LiveSession;
  sessionHeader: string | undefined;
  hints: { revision?: string };
  canStream: boolean;
}

export async function post(
  s: HttpSessions,
  req: IncomingMessage,
  res: ServerResponse,
  live: LiveSession,
  sessionHeader: string | undefined,
): Promise<void> {
  const body = await readBody(req, s.limit);
  if (!body) return jsonError(res, 413, `request body over ${s.limit} bytes`);
  let json: unknown;
  try {
    json = parseMessageText(body.toString('utf8'));
  } catch {
    return jsonError(res, 400, 'Parse error', -32700);
  }
  const messages = (Array.isArray(json) ? json : [json]) as Json[];
  const requests = messages.filter((m) => classify(m) === 'request');
  if (!deliverOthers(s, messages, live)) return jsonError(res, 400, 'Invalid Request', -32600);
  if (requests.length === 0) {
    res.writeHead(202);
    res.end();
    return;
  }
  const revisionHeader = req.headers['mcp-protocol-version'];
  const hints = typeof revisionHeader === 'string' ? { revision: revisionHeader } : {};
  const accepts = String(req.headers.accept ?? '');
  const p: Post = { s, req, res, live, sessionHeader, hints, canStream: accepts.includes('text/event-stream') };
  if (requests.length > 1 || Array.isArray(json)) return answerBatch(p, requests);
  return answerOne(p, requests[0]!);
}

/** Delivers the client's answers (to server→client requests) and plays its notifications; false
 * when a message is none of request, answer or notification (stopping there, as the loop did). */
function deliverOthers(s: HttpSessions, messages: Json[], live: LiveSession): boolean {
  const engine = s.engine;
  for (const m of messages) {
    const kind = classify(m);
    if (kind === 'response' || kind === 'error') {
      if (!engine.deliver(m, live)) {
        // Without a session id the answer may belong to any session's server→client request.
        const delivered = [...s.byId.values()].some((x) => x !== live && engine.deliver(m, x));
        if (!delivered) engine.logger?.debug({ id: m.id }, 'serve: a client answer nobody waits for');
      }
    } else if (kind === 'notification') {
      void s.track(engine.notify(m, live, s.streamOf(live)));
    } else if (kind !== 'request') {
      return false;
    }
  }
  return true;
}

/** A batch (2025-03-26): one JSON array of answers, or, when frames come before the answers and
 * the client takes SSE, a stream of those frames and each answer as its own event. */
async function answerBatch(p: Post, requests: Json[]): Promise<void> {
  const { s, res, live, sessionHeader } = p;
  const ids = new Set(requests.map((r) => JSON.stringify(r.id)));
  const answers: Json[] = [];
  let streaming = false;
  const sink: Outlet = {
    send: (f) => {
      const k = classify(f);
      const answer = (k === 'response' || k === 'error') && ids.has(JSON.stringify(f.id));
      if (answer && !streaming) return void answers.push(f);
      if (!answer && !p.canStream) return s.streamOf(live).send(f);
      if (!streaming) {
        streaming = true;
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache, no-transform',
          ...(sessionHeader ? { 'mcp-session-id': sessionHeader } : {}),
        });
        for (const a of answers.splice(0)) res.write(sseEvent(a));
      }
      if (!res.destroyed) res.write(sseEvent(f));
    },
    closed: () => res.destroyed,
    requestHeaders: forwardedHeaders(p.req),
  };
  for (const r of requests) await s.track(s.engine.play(s.engine.plan(r, live, p.hints), r, live, sink));
  if (streaming) {
    res.end();
    return;
  }
  res.writeHead(200, { ...JSON_TYPE, ...(sessionHeader ? { 'mcp-session-id': sessionHeader } : {}) });
  res.end(`[${answers.map(messageText).join(',')}]`);
}

/** One request: played in the session it names, or in a new one for an `initialize`. */
async function answerOne(p: Post, request: Json): Promise<void> {
  const { s, res, live, sessionHeader } = p;
  const engine = s.engine;
  let target = live;
  if (request.method === 'initialize' && !sessionHeader) target = s.open();
  const plan = engine.plan(request, target, p.hints);
  const headers: Record<string, string> = {};
  // A forwarded `initialize` (record and passthrough bridges) gets a session too: the real
  // server behind us keeps one connection per client.
  if (target !== live && ((plan.kind === 'matched' && plan.interaction.stateful) || plan.kind === 'forward')) {
    s.byId.set(target.id, target);
    headers['mcp-session-id'] = target.id;
  } else if (target !== live) {
    // A stateless 2025 server: the session's revision travels in MCP-Protocol-Version.
    target = live;
  }
  if (sessionHeader) headers['mcp-session-id'] = sessionHeader;
  const useSse =
    p.canStream && (engine.streams(plan, request) || (plan.kind === 'matched' && plan.interaction.contentType === 'text/event-stream'));
  const requestHeaders = forwardedHeaders(p.req);
  const isAnswer = (f: Json) => {
    const k = classify(f);
    return (k === 'response' || k === 'error') && JSON.stringify(f.id) === JSON.stringify(request.id);
  };
  if (useSse) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', ...headers });
    res.flushHeaders();
    let answered = false;
    const outlet: Outlet = {
      send: (f) => {
        // Frames recorded after the answer go to the session's GET stream when it has one
        // (the server closes a POST's stream once it answered).
        if (answered && s.standalone.has(target)) return s.streamOf(target).send(f);
        if (!res.destroyed) res.write(sseEvent(f));
        if (isAnswer(f)) answered = true;
      },
      closed: () => (answered && s.standalone.has(target) ? false : res.destroyed),
      requestHeaders,
    };
    await s.track(engine.play(plan, request, target, outlet));
    res.end();
    return;
  }
  let answer: Json | undefined;
  const outlet: Outlet = {
    send: (f) => {
      if (isAnswer(f) && answer === undefined) answer = f;
      else s.streamOf(target).send(f); // after the answer: the session's GET stream, if any
    },
    closed: () => res.destroyed,
    requestHeaders,
  };
  await s.track(engine.play(plan, request, target, outlet));
  if (res.destroyed) return;
  res.writeHead(200, { ...JSON_TYPE, ...headers });
  res.end(
    messageText(
      answer ?? {
        jsonrpc: '2.0',
        id: request.id,
        error: { code: -32603, message: 'mcp-cassette: the recorded session has no answer to this request' },
      },
    ),
  );
}
