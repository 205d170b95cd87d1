import type { HttpExchange } from '../../lib/cassette/cassette.js';
import type { RecordedMessage } from '../../lib/message.js';
import type { ReplayRunError } from '../types.js';

/** Where a replayed session's messages go: one live server process (stdio) or one MCP endpoint
 * (Streamable HTTP). Callbacks are installed before the first `send`. */
export interface LiveConnection {
  /** Sends one client message. Never throws: transport failures arrive through `onFailure`. */
  send(message: Record<string, unknown>, recorded: RecordedMessage, exchange?: HttpExchange): void;
  /** Every JSON-RPC message the server sent, in the order it arrived. */
  onMessage: (message: unknown) => void;
  /** The server died, could not be reached or stopped answering at the transport level. */
  onFailure: (error: Omit<ReplayRunError, 'session' | 'seq'>) => void;
  /** HTTP only: a replayed exchange got another status than the recorded one. */
  onStatus?: (recorded: RecordedMessage, recordedStatus: number, liveStatus: number) => void;
  /** Ends the session: closes stdin and waits for the process (killing it if it lingers), or
   * ends the HTTP session. Always resolves. */
  close(): Promise<void>;
}
