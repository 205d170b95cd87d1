import type { HttpExchange } from '../../lib/cassette/cassette.js';
import type { RecordedMessage } from '../../lib/message.js';
import type { ReplayRunError } from '../types.js';

/** Where a live message came from, when it came on a client-opened listen stream (HTTP GET):
 * `stream` is the id of the recorded GET exchange that stream replays. */
export interface MessageSource {
  stream?: number;
}

/** The live answer to a replayed GET or DELETE: its status, and for a GET whether an event
 * stream was opened. */
export interface ExchangeAnswer {
  status: number;
  contentType?: string;
  /** GET answered with an event stream: settles when that stream ends (the server ended it, or
   * the replay closed it). */
  ended?: Promise<void>;
}

/** Where a replayed session's messages go: one live server process (stdio) or one MCP endpoint
 * (Streamable HTTP). Callbacks are installed before the first `send`. */
export interface LiveConnection {
  /** Sends one client message. Never throws: transport failures arrive through `onFailure`.
   * HTTP: the promise settles when the POST's exchange has ended (its answer read to the end).
   * `text`: the exact text to send instead of `message` serialised (a verbatim play). */
  send(message: Record<string, unknown>, recorded: RecordedMessage, exchange?: HttpExchange, text?: string): void | Promise<void>;
  /** Every JSON-RPC message the server sent, in the order it arrived (`via`: the listen stream it
   * came on, if it came on one). */
  onMessage: (message: unknown, via?: MessageSource) => void;
  /** The server died, could not be reached or stopped answering at the transport level. */
  onFailure: (error: Omit<ReplayRunError, 'session' | 'seq'>) => void;
  /** HTTP only: a replayed exchange got another status than the recorded one. */
  onStatus?: (recorded: RecordedMessage, recordedStatus: number, liveStatus: number) => void;
  /** HTTP only: opens the listen stream that replays the recorded GET `exchange` (with the live
   * `Mcp-Session-Id`); resolves once the response headers arrived, with the live status, or
   * `undefined` when the request failed (the failure goes to `onFailure`). Messages on the
   * stream reach `onMessage` with `via.stream = exchange.id`. */
  openStream?(exchange: HttpExchange): Promise<ExchangeAnswer | undefined>;
  /** HTTP only: closes that listen stream, as the recorded client did. */
  closeStream?(exchange: HttpExchange): void;
  /** HTTP only: whether the live server gave this session an `Mcp-Session-Id`. */
  readonly hasSession?: boolean;
  /** HTTP only: ends the live session with the recorded DELETE; resolves with the live answer,
   * or `undefined` when the request failed (the failure goes to `onFailure`). */
  endSession?(exchange: HttpExchange): Promise<ExchangeAnswer | undefined>;
  /** Ends the session: closes stdin and waits for the process (killing it if it lingers), or
   * ends the HTTP session (closing open listen streams, and sending DELETE when the replay did
   * not). Always resolves. */
  close(): Promise<void>;
}
