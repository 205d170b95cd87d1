/** Who sent an HTTP exchange, as far as the recording may say: a salted hash of its credentials and
 * the issuer and audience of a JWT bearer token (never the token, which the journal masks). */
import { createHash, randomBytes } from 'node:crypto';
import type { TokenClaims } from '../lib/cassette/cassette.js';
import { tokenClaimsOf } from '../lib/cassette/http-exchange.js';

/** The salt of this proxy process's caller hashes: never written anywhere, so a cassette's hash
 * cannot be tested against a guessed token, and hashes compare only within one recording. */
const CALLER_SALT = randomBytes(32);

/**
 * The `caller` of an exchange: a truncated, salted SHA-256 of its Authorization value (never the
 * value, which the journal masks). Exchanges with the same credentials share a caller; the
 * validator keeps one server context per upstream and caller (one server may show different
 * tools to different users).
 */
export function callerOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return createHash('sha256').update(CALLER_SALT).update(authorization).digest('base64url').slice(0, 16);
}

/**
 * The `iss` and `aud` claims of an `Authorization: Bearer <JWT>` token, decoded without verifying
 * anything (they only tell which authorization server issued it, for which resource). Nothing
 * for opaque tokens, encrypted (five-part) JWTs or anything that does not parse.
 */
export function tokenClaims(authorization: string | undefined): TokenClaims | undefined {
  const m = /^Bearer\s+([\w-]+)\.([\w-]+)\.[\w-]*$/i.exec(authorization?.trim() ?? '');
  if (!m) return undefined;
  const part = (b64: string): unknown => {
    try {
      return JSON.parse(Buffer.from(b64, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
  };
  const header = part(m[1]!) as { alg?: unknown } | undefined;
  if (typeof header?.alg !== 'string') return undefined;
  return tokenClaimsOf(part(m[2]!));
}
