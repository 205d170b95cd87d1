/**
 * What makes two runs of the same server differ without anything having changed: JSON-RPC ids,
 * progress tokens, MRTR requestState, cursors, ttlMs, timestamps, UUIDs, the server's version,
 * session ids. Both the recorded and the live message go through `normalise` before they are
 * compared, so such values never show up as differences. Key order never matters (the diff walks
 * keys, not text) and ids are dropped before comparing, so their type never matters either.
 */

// Clock values in many forms, epoch numbers, UUIDs and base64 text: volatile-values.ts.
import { normaliseScalar } from './volatile-values.js';

/** Keys whose values are volatile wherever they appear. */
const VOLATILE_KEYS: Record<string, string> = {
  progressToken: '<progress-token>',
  requestState: '<request-state>',
  nextCursor: '<cursor>',
  cursor: '<cursor>',
  ttlMs: '<ttl-ms>',
  sessionId: '<session-id>',
  mcpSessionId: '<session-id>',
};

/** A compiled `--ignore` pattern: JSON Pointer segments where `*` matches one segment and `**`
 * any number of them (a pattern without a leading `/`, like `timestamp`, means `** /timestamp`). */
export interface IgnorePattern {
  source: string;
  segments: string[];
}

export function compileIgnore(pattern: string): IgnorePattern {
  const p = pattern.trim();
  const body = p.startsWith('/') ? p.slice(1) : `**/${p}`;
  const segments = body === '' ? [] : body.split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return { source: pattern, segments };
}

function segmentMatches(pattern: string, segment: string): boolean {
  if (pattern === '*') return true;
  if (!pattern.includes('*')) return pattern === segment;
  const re = new RegExp(`^${pattern.split('*').map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
  return re.test(segment);
}

function matchFrom(pattern: string[], pi: number, path: string[], si: number): boolean {
  if (pi === pattern.length) return si === path.length;
  const p = pattern[pi]!;
  if (p === '**') {
    for (let k = si; k <= path.length; k++) if (matchFrom(pattern, pi + 1, path, k)) return true;
    return false;
  }
  if (si === path.length) return false;
  return segmentMatches(p, path[si]!) && matchFrom(pattern, pi + 1, path, si + 1);
}

export function ignored(patterns: readonly IgnorePattern[], path: string[]): boolean {
  return patterns.some((p) => matchFrom(p.segments, 0, path, 0));
}

export function pointer(path: readonly string[]): string {
  return path.map((s) => '/' + s.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/**
 * A deep copy of a JSON-RPC message with its volatile values replaced by placeholders and the
 * ignored paths removed. `id` is always dropped: replay remaps ids and never compares them.
 */
export function normalise(message: unknown, ignore: readonly IgnorePattern[] = []): unknown {
  const walk = (value: unknown, path: string[], key: string | undefined, parentKey: string | undefined): unknown => {
    if (key !== undefined && key in VOLATILE_KEYS && value !== undefined && value !== null) return VOLATILE_KEYS[key];
    if (key === 'version' && parentKey !== undefined && /serverInfo$/.test(parentKey)) return '<version>';
    if (typeof value === 'string' || typeof value === 'number') return normaliseScalar(value, key);
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      value.forEach((v, i) => {
        const p = [...path, String(i)];
        if (!ignored(ignore, p)) out.push(walk(v, p, undefined, key));
      });
      return out;
    }
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (path.length === 0 && (k === 'id' || k === 'jsonrpc')) continue;
        const p = [...path, k];
        if (ignored(ignore, p)) continue;
        out[k] = walk(v, p, k, key);
      }
      return out;
    }
    return value;
  };
  return walk(message, [], undefined, undefined);
}
