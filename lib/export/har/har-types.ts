/**
 * The parts of HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) that `export --format
 * har` writes and `import --from har` reads. Custom fields start with `_`, as the spec asks:
 * `_eventSourceMessages` (SSE events, as HAR tools that record EventSource streams write them),
 * `_error` (Chrome's: why a request failed) and `_mcpCassette` (ours: where an entry came from).
 */
export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarEventSourceMessage {
  /** The event's name (`message` when the stream named none); `eventName` carries the same. */
  type: string;
  eventName: string;
  /** Seconds since the epoch, when the event was complete. */
  time: number;
  eventId: string;
  data: string;
}

/** Where an exported entry came from, so that `import --from har` can put it back. */
export interface HarMcpCassette {
  session: string;
  /** HTTP: the exchange's id in its session. */
  exchange?: number;
  outcome?: string;
  error?: string;
  /** stdio: the `seq` of the request (or notification) and of its answer. */
  seq?: number[];
}

export interface HarEntry {
  pageref?: string;
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    content: { size: number; mimeType: string; text?: string; encoding?: string; comment?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { blocked: number; dns: number; connect: number; ssl: number; send: number; wait: number; receive: number };
  _eventSourceMessages?: HarEventSourceMessage[];
  _mcpCassette?: HarMcpCassette;
}

export interface HarPage {
  startedDateTime: string;
  id: string;
  title: string;
  pageTimings: { onContentLoad: number; onLoad: number };
}

export interface HarLog {
  log: { version: '1.2'; creator: { name: string; version: string }; pages: HarPage[]; entries: HarEntry[]; comment?: string };
}

/** Milliseconds, rounded to the microsecond the cassette keeps (no float noise in the file). */
export const ms = (v: number): number => Math.round(Math.max(0, v) * 1000) / 1000;

/** `startedAt` plus an offset in milliseconds, as an ISO time to the microsecond (the cassette
 * keeps times to the microsecond; ISO 8601 and the HAR schema allow any number of digits, and a
 * reader that takes milliseconds only, as `Date.parse` does, reads the first three). */
export function isoAt(startedAt: string, offsetMs: number): string {
  const total = Math.round((Date.parse(startedAt) + offsetMs) * 1000);
  const whole = Math.floor(total / 1000);
  return new Date(whole).toISOString().replace('Z', `${String(total - whole * 1000).padStart(3, '0')}Z`);
}

/** The epoch time of an ISO time in milliseconds, digits past the millisecond included; NaN when
 * it is no time. */
export function epochMs(iso: string): number {
  const ms = Date.parse(iso);
  const digits = /\.\d{3}(\d+)(?:Z|[+-]\d)/i.exec(iso)?.[1];
  return digits === undefined ? ms : ms + Number(`0.${digits}`);
}
