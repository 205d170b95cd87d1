/** Byte classes of the JSON grammar (RFC 8259) as lookup tables, for the frame scanner (json-scan.ts). */
export const WS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;
export const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;
/** Escapes JSON.stringify writes itself (so a frame using them may still be canonical). */
export const CANONICAL_ESCAPE = new Uint8Array(256);
for (const c of '"\\bfnrt') CANONICAL_ESCAPE[c.charCodeAt(0)] = 1;
export const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;
