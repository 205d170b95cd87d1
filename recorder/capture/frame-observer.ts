import type { JournalEvent } from '../../lib/cassette/journal.js';
import type { Direction } from '../../lib/message.js';

/**
 * What hears the frames the capture filter writes, as it writes them (`record --otel`): each
 * stdio line (which numbers the frames as the cassette will), each MCP frame parsed (as the
 * cassette keeps it: masked and reduced), and each journal event (HTTP heads, exchange ends,
 * violations, the end).
 */
export interface FrameObserver {
  /** A stdio frame (any pipe) was complete: the cassette gives it the next seq. */
  line(): void;
  /** An MCP frame, its JSON (undefined when it does not parse), and its HTTP exchange. */
  frame(direction: Direction, json: unknown, exchange?: number): void;
  /** A journal event, as written (after the frames it completed). */
  event(record: JournalEvent): void;
}
