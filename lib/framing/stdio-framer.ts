import { frameToMessage, type Channel, type Direction, type RecordedMessage } from '../message.js';
import { LineSplitter } from './line-splitter.js';
import { SPILL_ABOVE, type SpillFile } from './spill.js';
import { spilledToMessage } from './spilled-message.js';

type StdioChannel = Exclude<Channel, 'http'>;

const DIRECTION: Record<StdioChannel, Direction> = { stdin: 'client-to-server', stdout: 'server-to-client', stderr: 'server-to-client' };

/**
 * Turns the chunks of a stdio session, in the order they crossed the proxy, into numbered
 * frames. The cassette fold and the live validator both use it, so a violation's `seq` is the
 * message's `seq` in the cassette.
 */
export class StdioFramer {
  #seq = 0;
  #now = 0;
  readonly #splitters = new Map<StdioChannel, LineSplitter>();

  /**
   * @param skipAbove frames longer than this are numbered but not parsed; `onSkip` hears of them
   *   (the live validator must not spend the proxy's time parsing a 50 MB result).
   * @param spill frames above `spillAbove` go to this file and become messages whose text stays
   *   there until the cassette is written (the cassette fold).
   */
  constructor(
    private readonly onMessage: (msg: RecordedMessage) => void,
    private readonly skipAbove = Infinity,
    private readonly onSkip?: (seq: number, bytes: number) => void,
    private readonly spill?: SpillFile,
    private readonly spillAbove = SPILL_ABOVE,
  ) {}

  push(channel: StdioChannel, chunk: Buffer, t: number): void {
    this.#now = t;
    this.#splitter(channel).push(chunk);
  }

  /** `n` bytes of a line already past `skipAbove`, given by size only (see LineSplitter.skip). */
  skip(channel: StdioChannel, n: number, t: number): void {
    this.#now = t;
    this.#splitter(channel).skip(n);
  }

  /** The channel ended: trailing bytes without a newline become an unterminated frame. */
  end(channel: StdioChannel, t: number): void {
    this.#now = t;
    this.#splitters.get(channel)?.end();
  }

  endAll(): void {
    for (const s of this.#splitters.values()) s.end();
  }

  #splitter(channel: StdioChannel): LineSplitter {
    let s = this.#splitters.get(channel);
    if (!s) {
      // Frames above skipAbove are never held or joined: the splitter only counts their bytes.
      s = new LineSplitter(
        (frame, terminated) => {
          this.#seq += 1;
          if (frame.length > this.skipAbove) {
            this.onSkip?.(this.#seq, frame.length);
            return;
          }
          this.onMessage(frameToMessage(frame, { seq: this.#seq, t: this.#now, direction: DIRECTION[channel], channel, terminated }));
        },
        this.skipAbove,
        (bytes) => {
          this.#seq += 1;
          this.onSkip?.(this.#seq, bytes);
        },
        this.spill
          ? {
              file: this.spill,
              above: this.spillAbove,
              onFrame: (frame, terminated) => {
                this.#seq += 1;
                this.onMessage(
                  spilledToMessage(frame, { seq: this.#seq, t: this.#now, direction: DIRECTION[channel], channel, terminated }),
                );
              },
            }
          : undefined,
      );
      this.#splitters.set(channel, s);
    }
    return s;
  }
}
