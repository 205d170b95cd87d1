import { MAX_JSON_DEPTH, shallowEnvelope, stringifyDeep, textTooDeep, valueTooDeep } from '../json-depth.js';
import type { Cassette } from './cassette.js';

/** How deep a message's `json` sits in the cassette file: cassette › sessions › [] › session ›
 * messages › [] › message › json. */
const WRAPPING = 7;

/**
 * A cassette read from disk may hold a message whose `json` nests deeper than MAX_JSON_DEPTH (one
 * written by hand or by a version that did not mark such frames): it is marked `tooDeep` as the
 * recorder would have marked it, its exact text kept in `raw`, so nothing downstream walks it.
 * One scan of the file text settles the common case (nothing that deep anywhere).
 */
export function markTooDeep(cassette: Cassette, text: string): Cassette {
  if (!textTooDeep(text, MAX_JSON_DEPTH + WRAPPING)) return cassette;
  for (const session of cassette.sessions) {
    for (const m of session.messages) {
      if (m.tooDeep || m.json === undefined || !valueTooDeep(m.json)) continue;
      if (m.raw === undefined && m.rawBase64 === undefined) m.raw = stringifyDeep(m.json);
      const envelope = shallowEnvelope(m.json);
      if (envelope) m.json = envelope;
      else delete m.json;
      m.tooDeep = true;
    }
  }
  return cassette;
}
