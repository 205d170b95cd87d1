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
  const serve = new StdioServe(engine, streams.output);
  const splitter = new LineSplitter((frame) => serve.onFrame(frame));
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
  await serve.finish();
}

/** The one client's session: its frames played in arrival order, their answers written back. */
class StdioServe {
  readonly #live = new LiveSession('stdio');
  readonly #inFlight = new Set<Promise<void>>();
  #chain: Promise<void> = Promise.resolve();
  // Every line goes through it, so an answer never shares the client's read with progress.
  readonly #gap = new ReadGap();
  readonly #outlet: Outlet;

  constructor(
    private readonly engine: ServeEngine,
    private readonly output: NodeJS.WritableStream,
  ) {
    this.#outlet = { send: (frame) => this.#write(frame) };
    this.#live.outlet = this.#outlet;
  }

  #write(frame: Json | Json[]): void {
    void this.output.write(this.#gap.line(frame));
  }

  #track(p: Promise<void>): void {
    const q = p.catch((err: unknown) => this.engine.logger?.error({ err }, 'serve: playing an interaction failed'));
    this.#inFlight.add(q);
    void q.finally(() => this.#inFlight.delete(q));
  }

  onFrame(frame: Buffer): void {
    const text = frame.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let json: unknown;
    try {
      json = parseMessageText(text);
    } catch {
      this.#outlet.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return;
    }
    if (!Array.isArray(json)) return this.#handle(json as Json);
    this.#batch(json as Json[]);
  }

  /** A batch (2025-03-26): its answers go back as one array, after any frames before them. */
  #batch(batch: Json[]): void {
    const { engine } = this;
    const live = this.#live;
    const requests = batch.filter((m) => classify(m) === 'request');
    for (const m of batch) if (classify(m) !== 'request') this.#handle(m);
    if (requests.length === 0) return;
    const ids = new Set(requests.map((r) => JSON.stringify(r.id)));
    const answers: Json[] = [];
    const sink: Outlet = {
      send: (frame) => {
        const k = classify(frame);
        if ((k === 'response' || k === 'error') && ids.has(JSON.stringify(frame.id))) answers.push(frame);
        else this.#outlet.send(frame);
      },
    };
    this.#chain = this.#chain.then(() => {
      const plays = requests.map((r) => engine.play(engine.plan(r, live), r, live, sink));
      this.#track(Promise.all(plays).then(() => this.#write(answers)));
    });
  }

  #handle(message: Json): void {
    const { engine } = this;
    const live = this.#live;
    const kind = classify(message);
    if (kind === 'response' || kind === 'error') {
      if (!engine.deliver(message, live)) engine.logger?.debug({ id: message.id }, 'serve: a client answer nobody waits for');
      return;
    }
    if (kind === 'notification') {
      this.#track(engine.notify(message, live, this.#outlet));
      return;
    }
    if (kind !== 'request') {
      this.#outlet.send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
      return;
    }
    // Plans are made in arrival order (repeats are answered in recorded order); playing may
    // overlap, as a real server's would.
    this.#chain = this.#chain.then(() => {
      const plan = engine.plan(message, live);
      this.#track(engine.play(plan, message, live, this.#outlet));
    });
  }

  /** Once stdin is done: the plans made, answers still being played (timing) finished; waits for
   * client answers end with stdin. */
  async finish(): Promise<void> {
    await this.#chain;
    for (const waiter of this.#live.pending.values()) waiter(undefined);
    await Promise.all([...this.#inFlight]);
  }
}
