/** Verdicts on the HTTP status of replayed GET and DELETE requests. */
import type { Difference } from '../types.js';

/**
 * The status of a replayed GET (the client's listen stream) or DELETE (the client ending its
 * 2025 session). Spec 2025-11-25, basic/transports, Streamable HTTP: "The server MUST either
 * return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405
 * Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint",
 * and for DELETE "The server MAY respond to this request with HTTP 405 Method Not Allowed,
 * indicating that the server does not allow clients to terminate sessions". A 405 is therefore
 * an answer every conforming client must already handle: a server that now gives it where it
 * used to accept the request is a warning (the client loses the stream, or can no longer end the
 * session early; what the stream carried is judged on its own), not a breaking change. Any other
 * 4xx/5xx where the request used to succeed is breaking: 404 says the session is gone, 400 that
 * the request is refused. Two 2xx statuses are the same answer; a 405 that became a 2xx is
 * compatible (the server now offers what it refused).
 */
export function judgeExchangeStatus(method: 'GET' | 'DELETE', recorded: number, live: number): Difference[] {
  if (recorded === live) return [];
  const ok = (s: number) => s >= 200 && s < 300;
  const what = method === 'GET' ? 'the GET that opens the listen stream' : 'the DELETE that ends the session';
  const base = { path: '', recorded, live };
  if (ok(recorded) && ok(live)) return [];
  if (ok(recorded) && live === 405) {
    return [
      method === 'GET'
        ? {
            ...base,
            verdict: 'warning',
            kind: 'listen-stream-refused',
            message: `${what} is now answered 405: the server no longer offers a listen stream (allowed by the spec; whatever it carried now comes elsewhere or not at all)`,
          }
        : {
            ...base,
            verdict: 'warning',
            kind: 'session-termination-refused',
            message: `${what} is now answered 405: the server no longer lets clients end their session (allowed by the spec; the session lives until the server ends it)`,
          },
    ];
  }
  if (recorded === 405 && ok(live)) {
    return [
      {
        ...base,
        verdict: 'compatible',
        kind: method === 'GET' ? 'listen-stream-offered' : 'session-termination-offered',
        message: `${what} used to be answered 405 and now succeeds (${live})`,
      },
    ];
  }
  return [
    {
      ...base,
      verdict: recorded < 400 && live >= 400 ? 'breaking' : 'warning',
      kind: 'http-status-changed',
      message: `HTTP status ${recorded} became ${live} for ${what}`,
    },
  ];
}
