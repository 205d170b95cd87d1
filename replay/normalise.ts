/**
 * What makes two runs of the same server differ without anything having changed: JSON-RPC ids,
 * progress tokens, MRTR requestState, cursors, ttlMs, timestamps, UUIDs, the server's version,
 * session ids. Both the recorded and the live message go through `normalise` before they are
 * compared, so such values never show up as differences. Key order never matters (the diff walks
 * keys, not text) and ids are dropped before comparing, so their type never matters either.
 */

import { CassetteError } from '../lib/errors.js';
// Clock values in many forms, epoch numbers, UUIDs and base64 text: volatile-values.ts.
import { normaliseScalar, type Mask } from './volatile-values.js';
import { jsonPointer, pointerKeys } from '../lib/json-pointer.js';
import { valueTooDeep } from '../lib/json-depth.js';
import { matchTemplate, parseTemplate, type Template } from './templates.js';

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
  /** A calibrated token template (templates.ts): the string at the path is skipped when it
   * matches, and compared as it is when it does not. Such a pattern removes nothing. */
  template?: Template;
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

/** A calibrated template at a path; undefined when the stored text is not a template. */
export function templatePattern(path: string, source: string): IgnorePattern | undefined {
  const template = parseTemplate(source);
  return template ? { ...compileIgnore(path), calibrated: true, template } : undefined;
}

/** Environment variables set by the shell or terminal a process was started from, not by the
 * server's configuration: they differ between a host's launch and a CI shell's. */
const SHELL_NOISE = new Set(['SHLVL', 'NO_COLOR', 'FORCE_COLOR', 'COLORTERM', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION', 'OLDPWD', '_']);

/** A printed process environment (`process.env`, `os.environ`): a `PATH` among at least three
 * keys that are all environment-variable names (npm adds lower-case `npm_config_*` ones) with
 * string values. */
function looksLikeEnvironment(o: Record<string, unknown>): boolean {
  if (typeof o.PATH !== 'string' && typeof o.Path !== 'string') return false;
  const entries = Object.entries(o);
  return entries.length >= 3 && entries.every(([k, v]) => typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k));
}

/** What replaces a string that matched its calibrated template. */
export const CALIBRATED = '<calibrated>';

/**
 * The key under which a string holding a JSON object or array is compared as that JSON (a text
 * content item that is `JSON.stringify` output): key order no longer matters, keys name their
 * values for the built-in shapes (`"pid"`, `"firstUsed"`), and a difference points into it.
 */
export const JSON_TEXT = '{json}';

/** The JSON a string holds, when it is a printed object or array (not too deep to walk). */
function jsonInText(s: string): unknown {
  const t = s.trim();
  if (t.length < 2 || t.length > 8_000_000) return undefined;
  const ends = (t[0] === '{' && t.at(-1) === '}') || (t[0] === '[' && t.at(-1) === ']');
  if (!ends) return undefined;
  try {
    const v = JSON.parse(t) as unknown;
    return v !== null && typeof v === 'object' && !valueTooDeep(v) ? v : undefined;
  } catch {
    return undefined;
  }
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
  return patterns.some((p) => !p.template && matches(p, path));
}

export function pointer(path: readonly string[]): string {
  return jsonPointer(path);
}

/** What normalising one message noted: the tokens each shape masked, by the pointer of the
 * value they sat in (a calibrated template's hole values count as shape `calibrated`). */
export type MaskNotes = Map<string, Mask[]>;

/**
 * A deep copy of a JSON-RPC message with its volatile values replaced by placeholders and the
 * ignored paths removed. `id` is always dropped: replay remaps ids and never compares them.
 * `volatile` collects the pointers of the values that calibrated patterns removed or matched (and
 * no other pattern did), for the count of skipped volatile values; `masks` the tokens masked.
 */
export function normalise(message: unknown, ignore: readonly IgnorePattern[] = [], volatile?: Set<string>, masks?: MaskNotes): unknown {
  const paths = ignore.filter((p) => !p.template);
  const templates = ignore.filter((p) => p.template);
  const drop = (path: string[]): boolean => {
    const hit = paths.find((p) => matches(p, path));
    if (hit?.calibrated && volatile) volatile.add(pointer(path));
    return hit !== undefined;
  };
  const scalar = (value: string | number, path: string[], key: string | undefined): unknown => {
    const found: Mask[] = [];
    let out = normaliseScalar(value, key, masks ? found : undefined);
    const t = templates.length ? templates.find((p) => matches(p, path))?.template : undefined;
    if (t) {
      const holes = matchTemplate(t, String(out));
      if (holes) {
        volatile?.add(pointer(path));
        for (const h of holes) found.push({ shape: 'calibrated', value: h });
        out = CALIBRATED;
      }
    }
    if (masks && found.length) masks.set(pointer(path), found);
    return out;
  };
  const walk = (value: unknown, path: string[], key: string | undefined, parentKey: string | undefined): unknown => {
    if (key !== undefined && key in VOLATILE_KEYS && value !== undefined && value !== null) return VOLATILE_KEYS[key];
    if (key === 'version' && parentKey !== undefined && /serverInfo$/.test(parentKey)) return '<version>';
    if (typeof value === 'string') {
      const json = jsonInText(value);
      if (json !== undefined) {
        const p = [...path, JSON_TEXT];
        return { [JSON_TEXT]: walk(json, p, undefined, key) };
      }
    }
    if (typeof value === 'string' || typeof value === 'number') return scalar(value, path, key);
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
      const env = looksLikeEnvironment(value as Record<string, unknown>);
      for (const [k, v] of Object.entries(value)) {
        if (path.length === 0 && (k === 'id' || k === 'jsonrpc')) continue;
        const p = [...path, k];
        if (drop(p)) continue;
        if (env && SHELL_NOISE.has(k)) {
          masks?.set(pointer(p), [{ shape: 'env-noise', value: String(v) }]);
          continue;
        }
        out[k] = walk(v, p, k, key);
      }
      return out;
    }
    return value;
  };
  return walk(message, [], undefined, undefined);
}

/** A masked token that differed between the recorded and the live answer. */
export interface MaskedToken {
  /** JSON Pointer of the value the token sat in. */
  path: string;
  /** The built-in shape (`pid`, `file-timestamp`…) or `calibrated` (a template's hole). */
  shape: string;
  recorded?: string;
  live?: string;
}

/** The masked tokens that varied: paired by value and position within it. At most `limit`. */
export function variedMasks(recorded: MaskNotes, live: MaskNotes, limit = 50): MaskedToken[] {
  const out: MaskedToken[] = [];
  for (const path of new Set([...recorded.keys(), ...live.keys()])) {
    const r = recorded.get(path) ?? [];
    const l = live.get(path) ?? [];
    for (let i = 0; i < Math.max(r.length, l.length) && out.length < limit; i++) {
      if (r[i]?.value === l[i]?.value) continue;
      out.push({ path, shape: (l[i] ?? r[i])!.shape, ...(r[i] ? { recorded: r[i]!.value } : {}), ...(l[i] ? { live: l[i]!.value } : {}) });
    }
  }
  return out;
}
