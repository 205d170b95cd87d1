/**
 * What makes two runs of the same server differ without anything having changed: JSON-RPC ids,
 * progress tokens, MRTR requestState, cursors, ttlMs, timestamps, UUIDs, the server's version,
 * session ids. Both the recorded and the live message go through `normalise` before they are
 * compared, so such values never show up as differences. Key order never matters (the diff walks
 * keys, not text) and ids are dropped before comparing, so their type never matters either.
 */

import { CassetteError } from '../lib/errors.js';
// Clock values in many forms, epoch numbers, UUIDs and base64 text: volatile-values.ts.
import { normaliseScalar } from './volatile-values.js';
import { jsonPointer, pointerKeys } from '../lib/json-pointer.js';

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
  /** Scoped: only for interactions of this JSON-RPC method (a notification's method, for
   * notifications) and, with `name`, only those naming this tool, prompt or resource URI. */
  method?: string;
  name?: string;
  /** Learned by `--calibrate`: the segments are literal (no globs), and what it removes is counted. */
  calibrated?: true;
}

export function compileIgnore(pattern: string): IgnorePattern {
  const p = pattern.trim();
  const body = p.startsWith('/') ? p.slice(1) : `**/${p}`;
  const segments = pointerKeys(body === '' ? '' : `/${body}`);
  return { source: pattern, segments };
}

/** How an `--ignore` string is written; every syntax error quotes it. */
export const IGNORE_FORMS =
  '"<pattern>", "<method> <pattern>" or "<method> <name> <pattern>", e.g. --ignore "tools/call get_env /result/content/*/text" (a scoped pattern is a JSON Pointer starting with /)';

/** Why an `--ignore` string is malformed, or undefined when it is fine. A string starting with `/`
 * is one global pattern (spaces included, as before scoping existed); otherwise its space-separated
 * parts are a pattern, `method pattern`, or `method name pattern`. */
export function ignoreProblem(spec: string): string | undefined {
  const p = spec.trim();
  if (p === '') return 'it is empty';
  if (p.startsWith('/')) return undefined;
  const parts = p.split(/\s+/);
  if (parts.length === 1) return undefined;
  if (parts.length > 3) return `it has ${parts.length} parts; a scoped ignore has at most 3`;
  if (!parts.at(-1)!.startsWith('/')) return `its pattern "${parts.at(-1)!}" does not start with /`;
  return undefined;
}

/** Compiles an `--ignore` string (see ignoreProblem); throws MCPC_USAGE when it is malformed. */
export function parseIgnore(spec: string): IgnorePattern {
  const problem = ignoreProblem(spec);
  if (problem) throw new CassetteError('MCPC_USAGE', `--ignore "${spec}" is not an ignore pattern: ${problem}; use ${IGNORE_FORMS}`);
  const p = spec.trim();
  const parts = p.startsWith('/') ? [p] : p.split(/\s+/);
  const pattern = compileIgnore(parts.at(-1)!);
  return { ...pattern, source: spec, ...(parts.length > 1 ? { method: parts[0]! } : {}), ...(parts.length > 2 ? { name: parts[1]! } : {}) };
}

/** A scoped ignore in object form: `{ method, name?, paths }`, one pattern per path. */
export interface IgnoreRule {
  method: string;
  name?: string;
  paths: readonly string[];
}

/** Compiles `--ignore` strings and object-form rules (throws MCPC_USAGE on a malformed string). */
export function compileIgnores(list: readonly (string | IgnoreRule)[] = []): IgnorePattern[] {
  return list.flatMap((spec) =>
    typeof spec === 'string'
      ? [parseIgnore(spec)]
      : spec.paths.map((path) => ({
          ...compileIgnore(path),
          method: spec.method,
          ...(spec.name !== undefined ? { name: spec.name } : {}),
        })),
  );
}

/** The patterns that apply to an interaction: the global ones, and those scoped to its method
 * (and name). */
export function patternsFor(patterns: readonly IgnorePattern[], method: string, name?: string): IgnorePattern[] {
  return patterns.filter((p) => p.method === undefined || (p.method === method && (p.name === undefined || p.name === name)));
}

/** A calibrated path (a JSON Pointer, as stored in the cassette) as a literal pattern. */
export function calibratedPattern(path: string): IgnorePattern {
  return { ...compileIgnore(path), calibrated: true };
}

function segmentMatches(pattern: string, segment: string): boolean {
  if (pattern === '*') return true;
  if (!pattern.includes('*')) return pattern === segment;
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*')}$`,
  );
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

function matches(p: IgnorePattern, path: string[]): boolean {
  if (p.calibrated) return p.segments.length === path.length && p.segments.every((s, i) => s === path[i]);
  return matchFrom(p.segments, 0, path, 0);
}

export function ignored(patterns: readonly IgnorePattern[], path: string[]): boolean {
  return patterns.some((p) => matches(p, path));
}

export function pointer(path: readonly string[]): string {
  return jsonPointer(path);
}

/**
 * A deep copy of a JSON-RPC message with its volatile values replaced by placeholders and the
 * ignored paths removed. `id` is always dropped: replay remaps ids and never compares them.
 * `volatile` collects the pointers of the values that calibrated patterns removed (and no other
 * pattern did), for the count of skipped volatile values.
 */
export function normalise(message: unknown, ignore: readonly IgnorePattern[] = [], volatile?: Set<string>): unknown {
  const drop = (path: string[]): boolean => {
    const hit = ignore.find((p) => matches(p, path));
    if (hit?.calibrated && volatile) volatile.add(pointer(path));
    return hit !== undefined;
  };
  const walk = (value: unknown, path: string[], key: string | undefined, parentKey: string | undefined): unknown => {
    if (key !== undefined && key in VOLATILE_KEYS && value !== undefined && value !== null) return VOLATILE_KEYS[key];
    if (key === 'version' && parentKey !== undefined && /serverInfo$/.test(parentKey)) return '<version>';
    if (typeof value === 'string' || typeof value === 'number') return normaliseScalar(value, key);
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      value.forEach((v, i) => {
        const p = [...path, String(i)];
        if (!drop(p)) out.push(walk(v, p, undefined, key));
      });
      return out;
    }
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (path.length === 0 && (k === 'id' || k === 'jsonrpc')) continue;
        const p = [...path, k];
        if (drop(p)) continue;
        out[k] = walk(v, p, k, key);
      }
      return out;
    }
    return value;
  };
  return walk(message, [], undefined, undefined);
}
