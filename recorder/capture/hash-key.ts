import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CassetteError, ioReason } from '../../lib/errors.js';
import { readOrCreate } from '../../lib/file-once.js';
import type { HashKey } from '../../lib/masked-values.js';

/**
 * The key of `record --capture hashed`. A value is stored as its HMAC-SHA-256 under this key, not
 * as a plain SHA-256, which a table of likely values (every 4-digit PIN, a list of e-mail
 * addresses) would turn back into the value. Hashes made with the same key compare equal, across
 * runs and machines; with another key, nothing matches. The key comes from MCP_CASSETTE_HASH_KEY
 * when it is set, else from the file `.mcp-cassette-hash-key` in the cassette's folder, created
 * the first time (mode 0600, whole or not at all, and one key even when recorders start at once).
 * Both hold the same text: at least 32 bytes as hexadecimal (`openssl rand -hex 32`).
 */
export const HASH_KEY_ENV = 'MCP_CASSETTE_HASH_KEY';
export const HASH_KEY_FILE = '.mcp-cassette-hash-key';

const KEY_BYTES = 32;
const HEX_CHARS = KEY_BYTES * 2;
const HOW = `at least ${HEX_CHARS} hexadecimal characters (${KEY_BYTES} random bytes), for example from \`openssl rand -hex ${KEY_BYTES}\``;

/** The key for the cassettes of `dir` (the `--cassette-dir`, or the folder of the `--cassette`). */
export function hashKeyFor(dir: string, env: NodeJS.ProcessEnv = process.env): HashKey {
  const given = env[HASH_KEY_ENV];
  if (given !== undefined) {
    const key = keyFrom(given);
    if (typeof key === 'string')
      throw new CassetteError(
        'MCPC_USAGE',
        `${HASH_KEY_ENV} is not a usable hash key (${key}); give ${HOW}, or unset it to use a key file`,
      );
    return key;
  }
  const path = join(dir, HASH_KEY_FILE);
  let text: string;
  try {
    mkdirSync(dir, { recursive: true });
    text = readOrCreate(path, `${randomBytes(KEY_BYTES).toString('hex')}\n`, 0o600);
  } catch (err) {
    // There and unreadable (a folder, another user's file), or not there and not creatable.
    const reading = existsSync(path);
    throw new CassetteError(
      reading ? 'MCPC_FILE_UNREADABLE' : 'MCPC_FILE_UNWRITABLE',
      `cannot ${reading ? 'read' : 'create'} the --capture hashed key ${path} (${ioReason(err)}); ${
        reading ? 'make it a file the user running record can read (mode 0600)' : 'give a cassette folder you can write'
      }, or give the key in ${HASH_KEY_ENV}`,
      { cause: err },
    );
  }
  const key = keyFrom(text);
  if (typeof key === 'string')
    throw new CassetteError(
      'MCPC_FILE_UNREADABLE',
      `the --capture hashed key ${path} is not a key (${key}); it must hold ${HOW}: restore it from a copy, or delete it to start a new key (hashes made with the old one will not match the new ones)`,
    );
  return key;
}

/** The key in `text`, or why it is none (never quoting it: it is a secret). */
function keyFrom(text: string): HashKey | string {
  const hex = text.trim();
  if (hex.length === 0) return 'it is empty';
  if (!/^[0-9a-fA-F]+$/.test(hex)) return 'it holds characters that are not hexadecimal';
  if (hex.length < HEX_CHARS) return `${hex.length} hexadecimal characters are too few`;
  if (hex.length % 2 !== 0) return 'an odd number of hexadecimal characters';
  const key = Buffer.from(hex, 'hex');
  return { id: keyId(key), key };
}

/** A fingerprint of the key, stored in each placeholder: 8 hex characters of a keyed hash, which
 * tell which key made a value and nothing of the key. */
function keyId(key: Uint8Array): string {
  return createHmac('sha256', key).update('mcp-cassette hash key id').digest('hex').slice(0, 8);
}
