import type { JournalWriter } from '../lib/cassette/journal.js';
import { StdioFramer } from '../lib/framing/stdio-framer.js';
import type { LiveObserver } from '../lib/live-observer.js';
import type { Channel, RecordedMessage } from '../lib/message.js';

type StdioChannel = Exclude<Channel, 'http'>;

/** Frames above this size are recorded but not validated live (parsing them would stall the proxy). */
const LIVE_MAX_FRAME = 8 * 1024 * 1024;
/** If validation falls this far behind the traffic, it stops for the session; recording goes on. */
const LIVE_MAX_BACKLOG = 64 * 1024 * 1024;

/**
 * Feeds the stdio traffic to the live observer off the forwarding path: chunks are queued when
 * they have been forwarded and journaled, and framed and judged in a later turn of the event loop
 * (setImmediate). Violations go into the journal, so the cassette and a recovery keep them.
 */
export class LiveTap {
  readonly #framer: StdioFramer;
  readonly #queue: [StdioChannel, Buffer | null, number][] = [];
  #backlog = 0;
  #observer: LiveObserver | undefined;
  #attached: Promise<unknown> | undefined;
  #disabled = false;
  #scheduled = false;

  constructor(private readonly sessionId: string, private readonly journal: JournalWriter, private readonly warn: (message: string) => void) {
    this.#framer = new StdioFramer((msg) => this.#judge(msg), LIVE_MAX_FRAME, (seq, bytes) => {
      this.warn(`message #${seq} (${bytes} bytes) is too large to validate live; it is recorded as is`);
    });
  }

  attach(observer: Promise<LiveObserver>): void {
    this.#attached = observer.then((o) => {
      this.#observer = o;
      this.#schedule();
    }, (err: unknown) => {
      this.#disabled = true;
      this.warn(`live validation is off: ${(err as Error).message}`);
    });
  }

  chunk(channel: StdioChannel, data: Buffer, t: number): void {
    if (this.#disabled) return;
    this.#queue.push([channel, data, t]);
    this.#backlog += data.length;
    if (this.#backlog > LIVE_MAX_BACKLOG) {
      this.#disabled = true;
      this.#queue.length = 0;
      this.warn('live validation fell too far behind the traffic and stopped for this session; recording goes on (run `mcp-cassette validate` on the cassette)');
      return;
    }
    this.#schedule();
  }

  end(channel: StdioChannel, t: number): void {
    if (!this.#disabled) this.#queue.push([channel, null, t]);
  }

  #schedule(): void {
    if (this.#scheduled || !this.#observer || this.#disabled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#drain();
    });
  }

  #drain(): void {
    for (let item = this.#queue.shift(); item; item = this.#queue.shift()) {
      const [channel, data, t] = item;
      if (data === null) this.#framer.end(channel, t);
      else {
        this.#backlog -= data.length;
        this.#framer.push(channel, data, t);
      }
    }
  }

  #judge(msg: RecordedMessage): void {
    for (const violation of this.#observer!.message({ id: this.sessionId, transport: 'stdio' }, msg)) {
      this.journal.event('violation', { violation });
    }
  }

  /** Judges what is still queued, then closes the observer. */
  async finish(): Promise<{ failed: boolean }> {
    await this.#attached;
    if (!this.#observer || this.#disabled) return this.#observer ? this.#observer.close() : { failed: false };
    this.#drain();
    this.#framer.endAll();
    return this.#observer.close();
  }
}
