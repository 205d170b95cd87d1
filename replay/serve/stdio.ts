/**
 * `serve` over stdio: one client on our stdin/stdout, as a host starts a server. stdout carries
 * only MCP messages (one JSON object per line); logs and the summary go to stderr. The run ends
 * when the client closes stdin and every request in flight has been answered.
 */
import { parseMessageText } from '../../lib/json-depth.js';
import { LineSplitter } from '../../lib/framing/line-splitter.js';
import { classify } from '../../lib/message.js';
import type { ServeEngine } from './engine.js';
import { LiveSession, type Outlet } from './live-session.js';
import type { Json } from './interactions.js';
import { ReadGap } from './read-gap.js';

export interface StdioStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Ends serving as if stdin had closed (SIGTERM, SIGINT). */
  stop?: AbortSignal;
}

export async function serveStdio(engine: ServeEngine, streams: StdioStreams): Promise<void> {
  const live = new LiveSession('stdio');
  const inFlight = new Set<Promise<void>>();
  let chain: Promise<void> = Promise.resolve();
  // Every line goes through it, so an answer never shares the client's read with progress.
  const gap = new ReadGap();
  const write = (frame: Json | Json[]) => void streams.output.write(gap.line(frame));
  const outlet: Outlet = { send: write };
  live.outlet = outlet;
  const track = (p: Promise<void>) => {
    const q = p.catch((err: unknown) => engine.logger?.error({ err }, 'serve: playing an interaction failed'));
    inFlight.add(q);
    void q.finally(() => inFlight.delete(q));
  };

  const onFrame = (frame: Buffer): void => {
    const text = frame.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let json: unknown;
    try {
      json = parseMessageText(text);
    } catch {
      outlet.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return;
    }
    if (!Array.isArray(json)) return handle(json as Json);
    // A batch (2025-03-26): its answers go back as one array, after any frames before them.
    const batch = json as Json[];
    const requests = batch.filter((m) => classify(m) === 'request');
    for (const m of batch) if (classify(m) !== 'request') handle(m);
    if (requests.length === 0) return;
    const ids = new Set(requests.map((r) => JSON.stringify(r.id)));
    const answers: Json[] = [];
    const sink: Outlet = {
      send: (frame) => {
        const k = classify(frame);
        if ((k === 'response' || k === 'error') && ids.has(JSON.stringify(frame.id))) answers.push(frame);
        else outlet.send(frame);
      },
    };
    chain = chain.then(() => {
      const plays = requests.map((r) => engine.play(engine.plan(r, live), r, live, sink));
      track(Promise.all(plays).then(() => write(answers)));
    });
  };

  const handle = (message: Json): void => {
    const kind = classify(message);
    if (kind === 'response' || kind === 'error') {
      if (!engine.deliver(message, live)) engine.logger?.debug({ id: message.id }, 'serve: a client answer nobody waits for');
      return;
    }
    if (kind === 'notification') {
      track(engine.notify(message, live, outlet));
      return;
    }
    if (kind !== 'request') {
      outlet.send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
      return;
    }
    // Plans are made in arrival order (repeats are answered in recorded order); playing may
    // overlap, as a real server's would.
    chain = chain.then(() => {
      const plan = engine.plan(message, live);
      track(engine.play(plan, message, live, outlet));
    });
  };

  const splitter = new LineSplitter((frame) => onFrame(frame));
  await new Promise<void>((resolve) => {
    streams.input.on('data', (chunk: Buffer) => splitter.push(chunk));
    streams.input.on('end', () => {
      splitter.end();
      resolve();
    });
    streams.input.on('error', () => resolve());
    if (streams.stop?.aborted) resolve();
    streams.stop?.addEventListener('abort', () => resolve(), { once: true });
  });
  await chain;
  // Answers still being played (timing) are finished; waits for client answers end with stdin.
  for (const waiter of live.pending.values()) waiter(undefined);
  await Promise.all([...inFlight]);
}
