/**
 * How much a session remembers: the bounds that keep the live validator's memory flat in front of
 * a server that runs for weeks (docs/production-capture.md, Memory of a run that never ends).
 */

/** How many requests a session remembers after their answer, per memory (progress tokens,
 * cancellations, cursors handed out, MRTR rounds awaiting their retry, calls answered without
 * resultType): what refers back to a request follows it closely, and a session that runs for
 * weeks must not keep every request it ever saw. */
export const PER_REQUEST_KEPT = 20_000;

/** Ended exchanges without an MCP message a session keeps for the rules that look back. */
export const ENDED_KEPT = 1000;

/** Forgets the oldest entries (first inserted) of a Map or Set past `kept`. */
export function forgetOldest(c: Map<unknown, unknown> | Set<unknown>, kept: number): void {
  let excess = c.size - kept;
  if (excess <= 0) return;
  for (const k of c.keys()) {
    if (excess-- <= 0) break;
    c.delete(k);
  }
}
