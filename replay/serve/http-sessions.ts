/**
 * What `serve --listen` keeps across requests: the stateless session, the 2025 sessions by id,
 * each session's GET stream (where frames sent outside a request go), and the plays in flight
 * (close waits for them).
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ServeEngine } from './engine.js';
import { sseEvent } from './http-wire.js';
import { LiveSession, type Outlet } from './live-session.js';

export class HttpSessions {
  readonly stateless = new LiveSession('http');
  readonly byId = new Map<string, LiveSession>();
  readonly standalone = new Map<LiveSession, ServerResponse>();
  readonly inFlight = new Set<Promise<void>>();

  constructor(
    readonly engine: ServeEngine,
    /** Request bodies over this many bytes are refused (413). */
    readonly limit: number,
  ) {
    this.stateless.outlet = this.streamOf(this.stateless);
  }

  /** The session's GET stream as an outlet: frames without one are logged and dropped. */
  streamOf(live: LiveSession): Outlet {
    return {
      send: (frame) => {
        const res = this.standalone.get(live);
        if (res && !res.destroyed) res.write(sseEvent(frame));
        else this.engine.logger?.debug({ method: frame.method }, 'serve: no standalone stream for a frame sent outside a request');
      },
      closed: () => false,
    };
  }

  /** A play the listener's close waits for; its failure is logged, never thrown at the client. */
  track(p: Promise<void>): Promise<void> {
    const q = p.catch((err: unknown) => this.engine.logger?.error({ err }, 'serve: playing an interaction failed'));
    this.inFlight.add(q);
    void q.finally(() => this.inFlight.delete(q));
    return q;
  }

  /** A new session, for an `initialize` that came without one. */
  open(): LiveSession {
    const target = new LiveSession(randomUUID());
    target.outlet = this.streamOf(target);
    return target;
  }
}
