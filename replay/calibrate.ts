/**
 * `replay --calibrate [N]`: learns what is volatile instead of asking for an ignore list. The
 * cassette is replayed N times against the build that recorded it, each run from the same state
 * (`--reset <command>` runs before each one, for stateful servers). What it learns, per request:
 * - for a string whose value differed (after the built-in shapes of volatile-values.ts), a token
 *   template (templates.ts): the text with only the tokens that varied as holes, so the rest of
 *   the text is still compared;
 * - for a key with a scalar value that is there in some runs only, that key (`paths`).
 * It learns nothing else, and never from a request where a run differed in a way that is not a
 * changed value (an isError, an error code, a tool removed, items that came and went): those are
 * printed as not volatility and not stored. It refuses outright (exit 2) when the live handshake
 * names another server or version than the recording, unless `--force`.
 *
 * A request is keyed by its 1-based index among its session's client requests: `replay
 * --update` keeps the client side verbatim, so the key survives it, while `seq` does not.
 */
import { resolve } from 'node:path';
import {
  CALIBRATION_VERSION,
  type CalibratedInteraction,
  type Calibration,
  type Cassette,
  type RecordedSession,
} from '../lib/cassette/cassette.js';
import { loadCassette } from '../lib/cassette/store.js';
import { CassetteError } from '../lib/errors.js';
import { diffJson, isObject } from './diff.js';
import { pointerKeys, valueAtKeys } from '../lib/json-pointer.js';
import { calibratedPattern, JSON_TEXT, pointer, templatePattern } from './normalise.js';
import type { ComparedAnswer, PlayOptions, VolatilePaths } from './play-model.js';
import { replayCassette, type ReplayOptions } from './replay.js';
import { runReset } from './reset.js';
import { learnTemplate, matchTemplate, parseTemplate } from './templates.js';
import type { CalibrationResult, ReplayResult } from './types.js';
import { changedMeanwhile, rewriteCassette, sessionTexts } from './update.js';
import { jsonSnippet } from '../lib/json-snippet.js';

export const DEFAULT_CALIBRATION_RUNS = 2;

/** Differences that are changed values, what volatility looks like. A difference of any other
 * kind (a tool removed, an error code changed, success became an error, a call that now fails) is
 * a real change or a changed state: the request it is in learns nothing. */
const VALUE_KINDS = new Set([
  'output-changed',
  'result-content-changed',
  'result-field-added',
  'result-field-removed',
  'result-meta-changed',
  'error-message-changed',
  'error-data-changed',
  'server-info-changed',
  'progress-changed',
  'notifications-changed',
]);

/** What the player needs for one session: the stored paths to skip, or, while calibrating, a
 * watcher of every compared answer (the stored paths are then not applied: calibration learns
 * afresh). */
export function volatileOptions(
  cassette: Cassette,
  session: RecordedSession,
  calibrating?: (s: RecordedSession, a: ComparedAnswer) => void,
): Pick<PlayOptions, 'volatile' | 'observe'> {
  if (calibrating) return { observe: (answer) => calibrating(session, answer) };
  const stored = cassette.calibration?.sessions[session.id];
  if (!stored) return {};
  const volatile = new Map<number, VolatilePaths>();
  for (const [index, entry] of Object.entries(stored)) {
    const templates = Object.entries(entry.templates ?? {}).flatMap(([path, source]) => templatePattern(path, source) ?? []);
    volatile.set(Number(index), {
      method: entry.method,
      ...(entry.name !== undefined ? { name: entry.name } : {}),
      patterns: [...entry.paths.map(calibratedPattern), ...templates],
    });
  }
  return { volatile };
}

/** Every answer one request got while calibrating (the recorded one is the same each run). */
interface Observed {
  seq: number;
  method: string;
  name?: string;
  recorded: unknown;
  lives: unknown[];
}

type NotVolatile = CalibrationResult['notVolatile'][number];

/** The `notVolatile` entry's kind for a value that changed beyond tokens (not a verdict kind). */
export const NOT_TOKEN_VOLATILITY = 'not-token-volatility';

const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** What one request's answers teach: what to store, and each path refused as no volatility. */
export interface Taught {
  entry: Omit<CalibratedInteraction, 'method' | 'name'>;
  refused: string[];
}

/**
 * What one request's answers teach. With two runs or more, only what varies between the runs:
 * the recording must then be one of them, equal wherever they agree (a template's literal text,
 * every other value); where it is not, the build, its state or its environment changed, which is
 * no volatility. With one run, what differs between the recording and it. A path refused is left
 * out; the others of the request are still learned.
 */
export function learnFrom(recorded: unknown, lives: readonly unknown[]): Taught {
  if (lives.length < 2) return learnBetween(recorded, lives);
  const taught = learnBetween(lives[0], lives.slice(1));
  const templates = taught.entry.templates ?? {};
  const keys = new Set(taught.entry.paths);
  for (const c of diffJson(recorded, lives[0])) {
    const at = pointer(c.path);
    if (keys.has(at) || taught.refused.some((r) => r.startsWith(`${at}: `))) continue;
    const t = templates[at] !== undefined ? parseTemplate(templates[at]) : undefined;
    if (
      t &&
      c.type === 'changed' &&
      (typeof c.recorded === 'string' || typeof c.recorded === 'number') &&
      matchTemplate(t, String(c.recorded))
    )
      continue;
    delete templates[at];
    taught.refused.push(
      `${at}: the runs agree and the recording differs (${jsonSnippet(c.recorded, 60)} → ${jsonSnippet(c.live, 60)}): a change of build, state or environment, not volatility`,
    );
  }
  return { entry: { paths: [...keys].sort(), ...(Object.keys(templates).length ? { templates } : {}) }, refused: taught.refused };
}

/** What `recorded` and `lives` differ in, as templates and scalar keys, and what is no volatility. */
function learnBetween(recorded: unknown, lives: readonly unknown[]): Taught {
  const strings = new Map<string, string[]>();
  const numbers = new Set<string>();
  const keys = new Set<string>();
  const refused = new Map<string, string>();
  const form = (v: unknown) => (isObject(v) && JSON_TEXT in v ? 'JSON text' : v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v);
  for (const live of lives) {
    for (const c of diffJson(recorded, live)) {
      const at = pointer(c.path);
      if (refused.has(at)) continue;
      const parent = valueAtKeys(c.type === 'added' ? live : recorded, c.path.slice(0, -1));
      if (c.type !== 'changed') {
        const value = c.type === 'added' ? c.live : c.recorded;
        if (Array.isArray(parent)) {
          const list = pointer(c.path.slice(0, -1));
          refused.set(list, `${list}: items came and went (a state that grows, not volatility: use --reset)`);
        } else if (!isScalar(value))
          refused.set(
            at,
            `${at}: ${c.type === 'added' ? 'a field appeared' : 'a field disappeared'} with ${form(value) === 'a list' ? 'a list' : 'an object'} in it`,
          );
        else keys.add(at);
        continue;
      }
      if (typeof c.recorded === 'string' && typeof c.live === 'string') {
        if (!strings.has(at)) strings.set(at, [c.recorded]);
        continue;
      }
      if (typeof c.recorded === 'number' && typeof c.live === 'number') {
        numbers.add(at);
        continue;
      }
      refused.set(
        at,
        `${at}: ${form(c.recorded)} became ${form(c.live)}${typeof c.recorded === 'boolean' ? ' (a flag, not a volatile value)' : ''}`,
      );
    }
  }
  const templates: Record<string, string> = {};
  for (const [at, values] of strings) {
    if (refused.has(at)) continue;
    const keysAt = pointerKeys(at);
    for (const live of lives) {
      const v = valueAtKeys(live, keysAt);
      if (typeof v === 'string') values.push(v);
    }
    const learned = learnTemplate(values);
    if ('refused' in learned) refused.set(at, `${at}: ${learned.refused}`);
    else templates[at] = learned.template.source;
  }
  for (const at of numbers) if (!refused.has(at)) templates[at] = '{{number}}';
  return {
    entry: { paths: [...keys].filter((k) => !refused.has(k)).sort(), ...(Object.keys(templates).length ? { templates } : {}) },
    refused: [...refused.values()],
  };
}

/** The server a handshake answer names: `name version`, or undefined when it names none. */
function serverOf(answer: unknown): string | undefined {
  const result = isObject(answer) && isObject(answer.result) ? answer.result : undefined;
  const info = result && isObject(result.serverInfo) ? result.serverInfo : undefined;
  return info ? `${String(info.name)} ${String(info.version)}` : undefined;
}

export async function calibrateCassette(path: string, options: ReplayOptions): Promise<ReplayResult> {
  const { calibrate: runs = DEFAULT_CALIBRATION_RUNS, force = false, reset, ...rest } = options;
  if (!Number.isInteger(runs) || runs < 1)
    throw new CassetteError(
      'MCPC_USAGE',
      `--calibrate takes a number of runs, at least 1 (default ${DEFAULT_CALIBRATION_RUNS}); got ${String(runs)}`,
    );
  if (options.update)
    throw new CassetteError(
      'MCPC_USAGE',
      '--calibrate and --update do not combine: calibrate against the build that recorded the cassette; update after a deliberate change',
    );
  const cassettePath = resolve(path);
  const loaded = loadCassette(cassettePath);
  const started = Date.now();
  const seen = new Observations();
  const notVolatile: NotVolatile[] = [];
  /** `session id` + seq of the requests where a run differed in more than a value. */
  const excluded = new Set<string>();
  const noted = new Set<string>();
  let first: ReplayResult | undefined;
  for (let run = 1; run <= runs; run++) {
    if (reset) runReset(reset);
    const result = await replayCassette(cassettePath, { ...rest, calibrating: (session, a) => seen.learn(session, a) });
    first ??= result;
    if (seen.otherServer && !force)
      throw new CassetteError(
        'MCPC_USAGE',
        `calibration refused: ${seen.otherServer}; calibrate against the build that recorded the cassette (or pass --force to learn from this one anyway). Nothing was stored.`,
      );
    if (result.outcome === 'error') {
      const note = `run ${run} of ${runs} could not finish (${result.error!.message}), so nothing was written`;
      return { ...result, calibration: { written: false, runs: run, sessions: [], notVolatile, conflicts: [], note } };
    }
    notValueChanges(result, excluded, noted, notVolatile);
  }
  const found = learnedEntries(seen.observed, excluded, loaded, notVolatile);
  const { written, conflicts } = await storeCalibration(cassettePath, loaded, found, runs);
  const stored: CalibrationResult['sessions'] = [];
  loaded.sessions.forEach((s, i) => {
    const entries = found.get(s.id);
    if (!entries || conflicts.some((c) => c.id === s.id)) return;
    const interactions = Object.entries(entries).map(([index, e]) => ({
      request: Number(index),
      seq: seen.observed.get(s.id)!.get(Number(index))!.seq,
      method: e.method,
      ...(e.name !== undefined ? { name: e.name } : {}),
      paths: e.paths,
      ...(e.templates ? { templates: e.templates } : {}),
    }));
    stored.push({ index: i + 1, id: s.id, interactions });
  });
  return { ...first!, durationMs: Date.now() - started, calibration: { written, runs, sessions: stored, notVolatile, conflicts } };
}

/** Every live answer of every run, per session and request, and whether the server answering is
 * another than the one recorded. */
class Observations {
  readonly observed = new Map<string, Map<number, Observed>>();
  otherServer: string | undefined;

  learn(session: RecordedSession, a: ComparedAnswer): void {
    if ((a.method === 'initialize' || a.method === 'server/discover') && !this.otherServer) {
      const was = serverOf(a.raw.recorded);
      const now = serverOf(a.raw.live);
      if (was !== undefined && now !== undefined && was !== now)
        this.otherServer = `the server answers as ${now}, the cassette was recorded from ${was}`;
    }
    let bySession = this.observed.get(session.id);
    if (!bySession) this.observed.set(session.id, (bySession = new Map()));
    let entry = bySession.get(a.index);
    if (!entry)
      bySession.set(
        a.index,
        (entry = { seq: a.seq, method: a.method, ...(a.name !== undefined ? { name: a.name } : {}), recorded: a.recorded, lives: [] }),
      );
    entry.lives.push(a.live);
  }
}

/** A run's differences in more than a value: their requests learn nothing (`excluded`), and each
 * is said once in `notVolatile` (compatible ones are not). */
function notValueChanges(result: ReplayResult, excluded: Set<string>, noted: Set<string>, notVolatile: NotVolatile[]): void {
  for (const s of result.sessions) {
    for (const i of s.interactions) {
      for (const d of i.differences) {
        if (VALUE_KINDS.has(d.kind)) continue;
        excluded.add(`${s.id} ${i.seq}`);
        const id = `${s.index} ${i.seq} ${i.exchange ?? ''} ${d.kind} ${d.path}`;
        if (d.verdict === 'compatible' || noted.has(id)) continue;
        noted.add(id);
        notVolatile.push({
          session: s.index,
          seq: i.seq,
          method: i.method,
          ...(i.name !== undefined ? { name: i.name } : {}),
          kind: d.kind,
          message: d.message,
        });
      }
    }
  }
}

/** Per session id, per request index, what was learned (only requests that taught anything). */
function learnedEntries(
  observed: Map<string, Map<number, Observed>>,
  excluded: Set<string>,
  loaded: Cassette,
  notVolatile: NotVolatile[],
): Map<string, Record<string, CalibratedInteraction>> {
  const found = new Map<string, Record<string, CalibratedInteraction>>();
  const sessionIndex = new Map(loaded.sessions.map((s, i) => [s.id, i + 1]));
  for (const [id, bySession] of observed) {
    const entries: Record<string, CalibratedInteraction> = {};
    for (const [index, o] of [...bySession].sort((a, b) => a[0] - b[0])) {
      if (excluded.has(`${id} ${o.seq}`)) continue;
      const taught = learnFrom(o.recorded, o.lives);
      const named = { method: o.method, ...(o.name !== undefined ? { name: o.name } : {}) };
      for (const message of taught.refused)
        notVolatile.push({ session: sessionIndex.get(id) ?? 0, seq: o.seq, ...named, kind: NOT_TOKEN_VOLATILITY, message });
      if (taught.entry.paths.length || taught.entry.templates) entries[String(index)] = { ...named, ...taught.entry };
    }
    if (Object.keys(entries).length) found.set(id, entries);
  }
  return found;
}

/** Writes the calibration into the cassette; a session another process added or changed
 * meanwhile keeps what it had (a conflict). */
async function storeCalibration(
  cassettePath: string,
  loaded: Cassette,
  found: Map<string, Record<string, CalibratedInteraction>>,
  runs: number,
): Promise<{ written: boolean; conflicts: CalibrationResult['conflicts'] }> {
  const before = sessionTexts(loaded);
  const conflicts: CalibrationResult['conflicts'] = [];
  const written = await rewriteCassette(cassettePath, 'replay --calibrate', (current) => {
    const sessions: Calibration['sessions'] = {};
    for (const id of before.keys()) {
      const reason = changedMeanwhile(current, before, id);
      if (reason) conflicts.push({ id, reason });
    }
    for (const s of current.sessions) {
      // A session another process added or changed meanwhile keeps what it had.
      const replayed = before.has(s.id) && !conflicts.some((c) => c.id === s.id);
      const entries = replayed ? found.get(s.id) : current.calibration?.sessions[s.id];
      if (entries) sessions[s.id] = entries;
    }
    const { sessions: list, calibration: _old, ...head } = current;
    return {
      ...head,
      calibration: { version: CALIBRATION_VERSION, runs, calibratedAt: new Date().toISOString(), sessions },
      sessions: list,
    };
  });
  return { written, conflicts };
}
