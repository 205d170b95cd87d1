import type { HttpHeaders } from '../lib/cassette/cassette.js';
import type { JournalRecord } from '../lib/cassette/journal.js';
import { storedHeader } from '../lib/http-headers.js';

/**
 * HTTP with several validator workers (`--validate-workers N`): which worker judges each
 * exchange. Everything one validator state depends on goes to one worker: a session (its
 * Mcp-Session-Id), or the stateless exchanges of one caller (they share the server's context,
 * validators/server-context.ts, keyed by upstream and caller; the upstream is the same for the
 * whole run). An exchange without Mcp-Session-Id on its request learns its session from the
 * response head, so its records wait until then, and so does everything after them: records
 * leave in journal order, so each worker sees its share in the order one worker would have seen
 * it, and its verdicts are the same.
 */
export class LiveRouter {
  /** The lane of each open exchange, once known. */
  readonly #lane = new Map<number, number>();
  /** Open exchanges whose lane waits for the response head: the caller of their request. */
  readonly #pending = new Map<number, string>();
  /** Records waiting (in journal order) behind an exchange whose lane is not known yet (`all`:
   * a record for every lane). */
  #held: { x: number; parts: Uint8Array[]; bytes: number; all?: true }[] = [];
  /** Exchanges that ended while records were held: forgotten once nothing is held. */
  #ended: number[] = [];
  /** Bytes held now. */
  heldBytes = 0;

  constructor(
    private readonly lanes: number,
    private readonly send: (lane: number, parts: Uint8Array[]) => void,
  ) {}

  /** One journal record (its journal line, and a chunk's bytes): sent on, or held (copied). */
  route(record: JournalRecord, parts: Uint8Array[]): void {
    if (record.x === undefined || record.x === null) return; // not an exchange's record: nothing a worker reads
    const x = Number(record.x);
    if ('ev' in record) this.#learn(x, record.ev, record);
    const lane = this.#lane.get(x);
    if (this.#held.length === 0 && lane !== undefined) {
      this.send(lane, parts);
    } else {
      let bytes = 0;
      for (const p of parts) bytes += p.length;
      this.#held.push({ x, parts: parts.map((p) => new Uint8Array(p)), bytes });
      this.heldBytes += bytes;
    }
    if (this.#held.length > 0) this.#drain();
    if ('ev' in record && record.ev === 'http-end') this.#ended.push(x);
    if (this.#held.length === 0 && this.#ended.length > 0) {
      for (const e of this.#ended) this.#lane.delete(e);
      this.#ended = [];
    }
  }

  /** A record every worker reads (a new --cassette-dir file), in its place among the others. */
  broadcast(parts: Uint8Array[]): void {
    if (this.#held.length === 0) {
      for (let lane = 0; lane < this.lanes; lane++) this.send(lane, parts);
      return;
    }
    this.#held.push({ x: -1, parts: parts.map((p) => new Uint8Array(p)), bytes: 0, all: true });
  }

  #learn(x: number, ev: string, record: Record<string, unknown>): void {
    if (ev === 'http-request') {
      const sid = header(record.headers, 'mcp-session-id');
      if (sid !== undefined) this.#lane.set(x, this.#of(`session:${sid}`));
      else this.#pending.set(x, typeof record.caller === 'string' ? record.caller : '');
    } else if ((ev === 'http-response' || ev === 'http-end') && this.#pending.has(x)) {
      const sid = ev === 'http-response' ? header(record.headers, 'mcp-session-id') : undefined;
      this.#lane.set(x, this.#of(sid !== undefined ? `session:${sid}` : `stateless:${this.#pending.get(x)}`));
      this.#pending.delete(x);
    }
  }

  #drain(): void {
    let i = 0;
    const held = this.#held;
    for (; i < held.length; i++) {
      if (held[i]!.all) {
        for (let lane = 0; lane < this.lanes; lane++) this.send(lane, held[i]!.parts);
        continue;
      }
      const lane = this.#lane.get(held[i]!.x);
      if (lane === undefined) break;
      this.send(lane, held[i]!.parts);
      this.heldBytes -= held[i]!.bytes;
    }
    if (i > 0) this.#held = held.slice(i);
  }

  /** Drops what is held (live validation stopped). */
  clear(): void {
    this.#held = [];
    this.heldBytes = 0;
  }

  #of(key: string): number {
    // FNV-1a: stable across runs, so the same traffic always splits the same way.
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    return (h >>> 0) % this.lanes;
  }
}

const header = (headers: unknown, name: string): string | undefined =>
  headers !== null && typeof headers === 'object' ? storedHeader(headers as HttpHeaders, name) : undefined;
