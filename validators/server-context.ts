import type { HttpExchange, RecordedSession } from '../lib/cassette/cassette.js';
import { UnchangedInputs } from './unchanged.js';

/**
 * What a server has shown of itself: its capabilities and supported versions, its lists (tools
 * by name, the last first page of each list method for order and invariance checks, list_changed
 * since), and what it handed out for later requests (cursors, requestStates, id-like values). On
 * stdio and on a 2025 sessionful HTTP session each session has its own; on stateless Streamable
 * HTTP every exchange is a session of its own, and the exchanges of one recording that reach the
 * same endpoint with the same identity share one (see `contextKey`), so the rules that need more
 * than one message judge an exchange in the light of the exchanges before it.
 */
export class ServerContext {
  /** Tools from the most recent `tools/list` answer, by name. */
  readonly tools = new Map<string, Record<string, unknown>>();
  /** Server capabilities from the DiscoverResult or the InitializeResult. */
  serverCapabilities?: Record<string, unknown>;
  /** `supportedVersions` from the DiscoverResult. */
  supportedVersions?: string[];
  /** The server answered a DiscoverResult or a result with `resultType`: it speaks 2026-07-28
   * (legacy-rejection.ts). */
  speaksModern?: true;
  /** The last complete first-page answer of each list method, to compare the next one with. */
  readonly lastList = new Map<string, { seq: number; items: unknown[]; authorization?: string; session: string; exchange?: number }>();
  /** A list_changed notification (tools, resources, prompts) arrived since the last list of that kind. */
  readonly listChanged = new Set<string>();
  /** `nextCursor`s the server handed out, per method. */
  readonly cursors = new Map<string, Set<string>>();
  /** `requestState` handed out with an `input_required` answer, by the request's identity. */
  readonly issuedState = new Map<string, { state?: string; id: unknown; kinds: string[]; keys: string[] }>();
  /** Values of id-like fields and requestStates the server handed out, for guessability. */
  readonly handedOut: { field: string; value: string | number }[] = [];
  /** Findings about the server itself already reported (SessionState.onceForServer). */
  readonly said = new Set<string>();
  /** The `resultOnly` rules' last inputs and reports, for the sessions that share this context
   * (validators/unchanged.ts): each stateless exchange is a session of its own, so a `tools/list`
   * answered again unchanged, as stateless clients ask it, is judged once per server rather than
   * once per exchange. Those rules read nothing of the session, so sharing them changes no
   * verdict. */
  readonly unchanged = new UnchangedInputs();
}

/**
 * The server contexts of one recording, by upstream and caller: a stateless HTTP exchange reads
 * and feeds the context of the recorded upstream URL and the exchange's `caller` (the salted hash
 * of its Authorization value the recorder noted, never the value; one server may show different
 * tools to different users). Sessionful and stdio sessions keep a context of their own.
 */
export class ServerContexts {
  readonly #byKey = new Map<string, ServerContext>();

  /** The context of an exchange: shared by upstream and caller. An exchange that carried an
   * Authorization header without a `caller` (a cassette from before callers were noted) is
   * told apart from no one, so it keeps a context of its own. */
  for(target: RecordedSession['target'] | undefined, exchange: Pick<HttpExchange, 'caller' | 'requestHeaders'> | undefined): ServerContext {
    if (exchange?.caller === undefined && exchange?.requestHeaders.authorization !== undefined) return new ServerContext();
    const key = `${target && 'url' in target ? target.url : ''} ${exchange?.caller ?? ''}`;
    let c = this.#byKey.get(key);
    if (!c) this.#byKey.set(key, (c = new ServerContext()));
    return c;
  }
}
