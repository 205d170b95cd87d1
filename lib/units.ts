import { CassetteError } from './errors.js';

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const BYTE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/**
 * `30m`, `1h`, `1h30m`, `2d`, `500ms` (or a bare number of seconds) to milliseconds. `option` names
 * the flag in the error, which says what went wrong and gives an example.
 */
export function parseDuration(value: unknown, option: string): number {
  const text = String(value).trim().toLowerCase();
  let ms = 0;
  if (/^\d+(?:\.\d+)?$/.test(text)) ms = Number(text) * 1000;
  else {
    const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;
    let at = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      ms += Number(m[1]) * DURATION_UNITS[m[2]!]!;
      at = re.lastIndex;
    }
    if (at === 0 || at !== text.length) ms = Number.NaN;
  }
  if (!Number.isFinite(ms) || ms <= 0)
    throw new CassetteError(
      'MCPC_USAGE',
      `${option} ${JSON.stringify(String(value))} is not a duration; give a positive number with a unit: ms, s, m, h, d or w (for example 30m, 1h, 1h30m, 7d)`,
    );
  return Math.round(ms);
}

/** `10MB`, `512KiB`, `1.5GB`, `4096` (bytes) to bytes: KB/MB/GB/TB are powers of 1000, KiB/MiB/GiB/TiB of 1024. */
export function parseBytes(value: unknown, option: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(String(value).trim());
  const unit = m ? (m[2] || 'b').toLowerCase() : '';
  const factor = BYTE_UNITS[unit === 'k' ? 'kb' : unit === 'm' ? 'mb' : unit === 'g' ? 'gb' : unit];
  const bytes = m && factor ? Math.floor(Number(m[1]) * factor) : Number.NaN;
  if (!Number.isFinite(bytes) || bytes <= 0)
    throw new CassetteError(
      'MCPC_USAGE',
      `${option} ${JSON.stringify(String(value))} is not a size; give a positive number with an optional unit: B, KB, MB, GB, TB (1000s) or KiB, MiB, GiB, TiB (1024s), for example 10MB`,
    );
  return bytes;
}

/** A positive whole number, for counts such as --keep-files and --rotate-sessions. */
export function parseCount(value: unknown, option: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(String(value)) || !Number.isSafeInteger(n) || n <= 0)
    throw new CassetteError(
      'MCPC_USAGE',
      `${option} ${JSON.stringify(String(value))} must be a whole number of at least 1, for example 10`,
    );
  return n;
}
