/**
 * `replay --calibrate [N]`: learns what is volatile instead of asking for an ignore list. The
 * cassette is replayed N times against the build that recorded it; wherever a (normalised) live
 * answer differs from the recorded one, the value is volatile: a clock in a format the built-in
 * normalisers do not know, a pid, a random id, the environment. Those JSON Pointers are stored per
 * request in the cassette's `calibration` (lib/cassette/cassette.ts), and later replays leave them
 * out of the comparison for that request only, counting what they skipped (`volatileSkipped`).
 *
 * Comparing every run with the recording covers differences between runs too: two runs that differ
 * at a path cannot both equal the recording there. A request is keyed by its 1-based index among
 * its session's client requests: `replay --update` keeps the client side verbatim, so the key
 * survives it, while `seq` does not.
 */
import { relative, resolve } from 'node:path';
import {
  CALIBRATION_VERSION,
  type CalibratedInteraction,
  type Calibration,
  type Cassette,
  type RecordedSession,
} from '../lib/cassette/cassette.js';
import { loadCassette } from '../lib/cassette/store.js';
import { CassetteError } from '../lib/errors.js';
import { diffJson } from './diff.js';
import { valueAtKeys } from '../lib/json-pointer.js';
import { calibratedPattern, pointer } from './normalise.js';
import type { ComparedAnswer, PlayOptions, VolatilePaths } from './play-model.js';
import { replayCassette, type ReplayOptions } from './replay.js';
import type { CalibrationResult, ReplayResult } from './types.js';
import { changedMeanwhile, rewriteCassette, sessionTexts } from './update.js';

export const DEFAULT_CALIBRATION_RUNS = 2;

/** Differences that are changed values, what volatility looks like. A breaking difference of any
 * other kind (a tool removed, an error code changed, success became an error) is a real change. */
const VALUE_KINDS = new Set([
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

/**
 * Where two normalised answers differ: a changed value at its own path; an element present on one
 * side only at its array (the elements after it moved, and the length may differ next time); a key
 * present on one side only at that key (its parent may hold stable values). A path under another
 * one is left out.
 */
export function volatilePaths(recorded: unknown, live: unknown): string[] {
  const found = new Set<string>();
  for (const c of diffJson(recorded, live)) {
    const parent = c.path.slice(0, -1);
    const inArray = c.type !== 'changed' && Array.isArray(valueAtKeys(c.type === 'added' ? live : recorded, parent));
    const path = inArray ? parent : c.path;
    if (path.length) found.add(pointer(path));
  }
  return outermost(found);
}

/** Sorted, without the paths that lie under another one. */
function outermost(paths: Iterable<string>): string[] {
  const sorted = [...new Set(paths)].sort();
  return sorted.filter((p) => !sorted.some((q) => q !== p && p.startsWith(`${q}/`)));
}

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
    volatile.set(Number(index), {
      method: entry.method,
      ...(entry.name !== undefined ? { name: entry.name } : {}),
      patterns: entry.paths.map(calibratedPattern),
    });
  }
  return { volatile };
}

interface Learned {
  seq: number;
  method: string;
  name?: string;
  paths: Set<string>;
}

export async function calibrateCassette(path: string, options: ReplayOptions): Promise<ReplayResult> {
  const { calibrate: runs = DEFAULT_CALIBRATION_RUNS, ...rest } = options;
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
  const learned = new Map<string, Map<number, Learned>>();
  const learn = (session: RecordedSession, a: ComparedAnswer): void => {
    let bySession = learned.get(session.id);
    if (!bySession) learned.set(session.id, (bySession = new Map()));
    let entry = bySession.get(a.index);
    if (!entry)
      bySession.set(
        a.index,
        (entry = { seq: a.seq, method: a.method, ...(a.name !== undefined ? { name: a.name } : {}), paths: new Set() }),
      );
    for (const p of volatilePaths(a.recorded, a.live)) entry.paths.add(p);
  };
  const notVolatile: CalibrationResult['notVolatile'] = [];
  const noted = new Set<string>();
  let first: ReplayResult | undefined;
  for (let run = 1; run <= runs; run++) {
    const result = await replayCassette(cassettePath, { ...rest, calibrating: learn });
    first ??= result;
    if (result.outcome === 'error') {
      const note = `run ${run} of ${runs} could not finish (${result.error!.message}), so nothing was written`;
      return { ...result, calibration: { written: false, runs: run, sessions: [], notVolatile, conflicts: [], note } };
    }
    for (const s of result.sessions) {
      for (const i of s.interactions) {
        for (const d of i.differences) {
          const id = `${s.index} ${i.seq} ${i.exchange ?? ''} ${d.kind} ${d.path}`;
          if (d.verdict !== 'breaking' || VALUE_KINDS.has(d.kind) || noted.has(id)) continue;
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

  // Per session id, per request index, the paths learned (only requests that had any).
  const found = new Map<string, Record<string, CalibratedInteraction>>();
  for (const [id, bySession] of learned) {
    const entries: Record<string, CalibratedInteraction> = {};
    for (const [index, l] of [...bySession].sort((a, b) => a[0] - b[0])) {
      const kept = outermost(l.paths);
      if (kept.length) entries[String(index)] = { method: l.method, ...(l.name !== undefined ? { name: l.name } : {}), paths: kept };
    }
    if (Object.keys(entries).length) found.set(id, entries);
  }
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
  const stored: CalibrationResult['sessions'] = [];
  loaded.sessions.forEach((s, i) => {
    const entries = found.get(s.id);
    if (!entries || conflicts.some((c) => c.id === s.id)) return;
    const interactions = Object.entries(entries).map(([index, e]) => ({
      request: Number(index),
      seq: learned.get(s.id)!.get(Number(index))!.seq,
      method: e.method,
      ...(e.name !== undefined ? { name: e.name } : {}),
      paths: e.paths,
    }));
    stored.push({ index: i + 1, id: s.id, interactions });
  });
  return { ...first!, durationMs: Date.now() - started, calibration: { written, runs, sessions: stored, notVolatile, conflicts } };
}

/** The console text of a calibration: what was learned, per interaction, and what looked like a
 * real change rather than volatility. */
export function renderCalibration(result: ReplayResult): string {
  const c = result.calibration!;
  const file = relative(process.cwd(), result.cassette) || result.cassette;
  const target = result.target.url ?? result.target.command?.join(' ') ?? '';
  const lines = [`calibrate ${file} against ${target}: ${c.runs} run${c.runs === 1 ? '' : 's'}`];
  if (result.error) lines.push(`ERROR ${result.error.code}: ${result.error.message}`);
  let paths = 0;
  for (const s of c.sessions) {
    const session = result.sessions.find((r) => r.index === s.index);
    lines.push(`session ${s.index}${session?.label ? ` (${session.label})` : ''}:`);
    for (const i of s.interactions) {
      paths += i.paths.length;
      lines.push(`  #${i.seq} ${i.method}${i.name ? ` ${i.name}` : ''}: ${i.paths.join(', ')}`);
    }
  }
  if (c.notVolatile.length) {
    lines.push(
      '',
      'NOT VOLATILITY: these breaking differences are real changes, not changed values; is the target the build that recorded the cassette? (their paths were stored all the same)',
    );
    for (const n of c.notVolatile)
      lines.push(`  session ${n.session} #${n.seq} ${n.method}${n.name ? ` ${n.name}` : ''}: ${n.kind}: ${n.message}`);
  }
  for (const x of c.conflicts) lines.push(`session ${x.id} not calibrated: ${x.reason}; run the calibration again`);
  lines.push('');
  const interactions = c.sessions.reduce((n, s) => n + s.interactions.length, 0);
  if (c.written)
    lines.push(
      `calibrated ${file}: ${paths} volatile path${paths === 1 ? '' : 's'} in ${interactions} interaction${interactions === 1 ? '' : 's'}; later replays skip them for those interactions only`,
    );
  else lines.push(`${file} not calibrated: ${c.note ?? 'nothing could be written'}`);
  return lines.join('\n') + '\n';
}
