import { WaitingQueue } from '../waiting-queue.js';
import type { JournalSink } from './journal.js';

/**
 * The record a `record --cassette-dir` journal hands its live listeners (never writes) when it
 * begins a new file: `sessionId`, the new file's id, which its sessions are named by from then on.
 */
export const NEW_JOURNAL_FILE = 'journal-file';

/** Tells a journal's live listeners (`onRecord`) that it began a new file, `sessionId`. */
export function announceNewFile(journal: Pick<JournalSink, 'onRecord'>, t: number, sessionId: string): void {
  const record = { t, ev: NEW_JOURNAL_FILE, sessionId };
  journal.onRecord?.(record, Buffer.from(`${JSON.stringify(record)}\n`));
}

/** What an HTTP exchange belongs to, as the cassette will say it. */
export interface HttpSessionName {
  /** The cassette session's id: `<journal session id>-<exchange>`, the exchange being the first
   * of the session (by the order the requests came). */
  id: string;
  /** The Mcp-Session-Id the session's exchanges carry (2025 sessions); absent on a stateless
   * exchange (2026-07-28), which is a session of its own. */
  mcpSessionId?: string;
}

interface Waiting {
  x: number;
  sid?: string;
  /** Whether the exchange's session is known: its request named one, or its response head came
   * (it may name one an `initialize` opened), or it ended without one. */
  known: boolean;
}

/**
 * Names the sessions of one Streamable HTTP journal, read in order: the one rule by which the
 * cassette fold (fold-http.ts) and everything that shows a session live (the live validator's
 * alerts, `record --ui`) name them, so that a session has one id everywhere. A session is named
 * after its first exchange, which any reader that sees every exchange of the session can tell
 * without seeing the others (each live validator worker sees only its own sessions).
 *
 * Exchanges are named in the order their requests came: a request without Mcp-Session-Id learns
 * its session from its response head, and an exchange after it waits until then, since the
 * earlier one may turn out to be the first of the later one's session.
 */
export class HttpSessionIds {
  /** Ids of the sessions with an Mcp-Session-Id, by it. */
  readonly #bySid = new Map<string, string>();
  readonly #byX = new Map<number, Waiting>();
  readonly #waiting = new WaitingQueue<Waiting>(
    (w) => w.known,
    (w) => this.#name(w),
  );

  constructor(
    private readonly base: string,
    private readonly named: (x: number, name: HttpSessionName) => void,
  ) {}

  /** An exchange began; `sid`: the Mcp-Session-Id of its request. */
  request(x: number, sid: string | undefined): void {
    this.end(x); // a journal that names an exchange twice (torn, or written by hand) holds no one up
    const w: Waiting = { x, ...(sid !== undefined ? { sid } : {}), known: sid !== undefined };
    this.#byX.set(x, w);
    this.#waiting.push(w);
  }

  /** Its response head came; `sid`: the Mcp-Session-Id it carries. */
  response(x: number, sid: string | undefined): void {
    const w = this.#byX.get(x);
    if (!w || w.known) return;
    if (sid !== undefined) w.sid = sid;
    w.known = true;
    this.#waiting.drain();
  }

  /** It ended (or the journal did): without a session named by then, it is one of its own. */
  end(x: number): void {
    const w = this.#byX.get(x);
    if (!w || w.known) return;
    w.known = true;
    this.#waiting.drain();
  }

  #name(w: Waiting): void {
    const { x, sid } = w;
    if (this.#byX.get(x) === w) this.#byX.delete(x);
    let id = sid === undefined ? undefined : this.#bySid.get(sid);
    if (id === undefined) {
      id = `${this.base}-${x}`;
      if (sid !== undefined) this.#bySid.set(sid, id);
    }
    this.named(x, { id, ...(sid !== undefined ? { mcpSessionId: sid } : {}) });
  }
}
