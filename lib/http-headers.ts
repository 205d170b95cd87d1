/**
 * HTTP headers in one place: the `--header "Name: value"` options of the commands that talk to
 * an HTTP server (probe, replay, serve --upstream), and the lookup of one header in the headers a
 * journal or cassette keeps.
 */
import type { HttpHeaders } from './cassette/cassette.js';
import { CassetteError } from './errors.js';

/** A field name is an RFC 9110 token (§5.6.2); blanks around the colon and the value are
 * dropped, the way a header line's optional whitespace is. */
const HEADER_OPTION = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s*(.*?)\s*$/;

/**
 * `--header` options → the headers to send, by lowercased name: HTTP names are case-insensitive
 * and the transports send them lowercased, so `Authorization` given twice in two casings is one
 * header (the last one given wins), and it replaces a recorded `authorization` rather than
 * joining it. A name that is not a token would only fail later, deep in the HTTP client.
 */
export function parseHeaderOptions(options: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const option of options) {
    const m = HEADER_OPTION.exec(option);
    if (!m) throw new CassetteError('MCPC_USAGE', `--header ${JSON.stringify(option)} is not "Name: value"`);
    out[m[1]!.toLowerCase()] = m[2]!;
  }
  return out;
}

/**
 * The first value of a header, by its key as stored. The recorder stores header names lowercased
 * (redactHeaderValues), so callers pass lowercase names and get an exact, cheap lookup; this is
 * what the journal fold, the live framer and `serve` rely on.
 */
export function storedHeader(headers: HttpHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The first value of a header, case-insensitively as HTTP is (`name` in lowercase): for judging
 * traffic, where a hand-written cassette may spell a name `Mcp-Session-Id`.
 */
export function headerOf(headers: HttpHeaders | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const k of Object.keys(headers)) {
    // The first key that matches, in the headers' order; lowercased only when the length fits.
    if (k === name || (k.length === name.length && k.toLowerCase() === name)) {
      const v = headers[k];
      return Array.isArray(v) ? v[0] : v;
    }
  }
  return undefined;
}
