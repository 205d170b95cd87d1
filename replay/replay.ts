/**
 * `replayCassette`: plays every recorded session of a cassette against a live server (a fresh
 * process per session over stdio, or an MCP endpoint over Streamable HTTP) and returns what
 * changed, judged per difference. It never throws for the server's behaviour: a server that will
 * not start, crashes or hangs ends the run with `outcome: 'error'` and a partial result. It throws
 * a CassetteError (MCPC_CASSETTE_*, MCPC_CONFIG_*, MCPC_USAGE) when it cannot start at all.
 */
import { Agent } from 'undici';
import type { RecordedSession } from '../lib/cassette/cassette.js';
import { loadCassetteInput, oneCassetteFile } from '../lib/cassette/cassette-set.js';
import { CassetteError } from '../lib/errors.js';
import { loadReplayConfig, settingsFor, type ContentPolicy } from './config.js';
import { calibrateCassette } from './calibrate.js';
import { runReset } from './reset.js';
import { compileIgnores, type IgnoreRule } from './normalise.js';
import { newMemory, type ComparedAnswer } from './play-model.js';
import type { ReplayResult, ReplaySummary, SessionResult, UpdateResult } from './types.js';
import { needsUpdate, rebuildSession, secretHeadersOf, writeUpdate, type TapedSession } from './update.js';
import { checkFindingReplay, type SessionJudge } from './finding.js';
import { type ReplayRun, replaySession, sessionBase } from './replay-session.js';

export const DEFAULT_TIMEOUT_MS = 10_000;

export interface ReplayOptions {
  /** Server argv for stdio replay (spawned without a shell, once per recorded session). */
  command?: readonly string[];
  /** MCP endpoint for Streamable HTTP replay. */
  url?: string;
  /** Extra paths to ignore: JSON Pointers into the message (`/result/content/0/text`) with `*`
   * for one segment and `**` for any; a bare name (`timestamp`) matches that key anywhere.
   * Scoped to a method and a name: `"tools/call get_env /result/content/*\/text"`, or
   * `{ method: 'tools/call', name: 'get_env', paths: [...] }`. */
  ignore?: readonly (string | IgnoreRule)[];
  /** Per-request timeout in ms (default 10000). */
  timeoutMs?: number;
  /** Working directory and environment for the stdio server. */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Extra headers for every HTTP request (a real token when the cassette's is redacted). */
  headers?: Record<string, string>;
  /** `mcp-cassette.config.json` to read; by default the one in the current directory, if any.
   * `false` reads none. */
  config?: string | false;
  /** Re-record the cassette from the live server: every session that changed is replaced by the
   * live traffic (see update.ts), the others are kept byte for byte. Nothing is written when the
   * replay could not run to the end. */
  update?: boolean;
  /** With `update`: also mask these HTTP headers in the live answers (the recorder's defaults and
   * every header the cassette holds masked are masked anyway). */
  redactHeaders?: readonly string[];
  /** Calibrate: replay this many times (at least 1; the CLI's default is 2) against the build that
   * recorded the cassette and store the paths whose values differed in the cassette's
   * `calibration` (see calibrate.ts); `result.calibration` says what was stored. */
  calibrate?: number;
  /** What a changed output (`output-changed`) does: `fail` (default, exit 1) or `warn`. Overrides
   * the config file's `content`. */
  content?: ContentPolicy;
  /** With `calibrate`: learn even when the live handshake names another server or version than
   * the recording (otherwise calibration refuses, MCPC_USAGE). */
  force?: boolean;
  /** A shell command run before the replay, and before each calibration run: it puts a stateful
   * server's data back where the recording started (reset.ts). */
  reset?: string;
  /** Used by calibration: sees every compared answer; the cassette's calibration is not applied. */
  calibrating?: (session: RecordedSession, answer: ComparedAnswer) => void;
  /** Called when a session starts playing (1-based index), for progress output. */
  onSessionStart?: (index: number, total: number, session: RecordedSession) => void;
  /** Called when a session is done, for progress output. */
  onSession?: (session: SessionResult, total: number) => void;
  /** The validator, for a fuzz finding's cassette whose finding is a rule (the CLI's composition
   * root hands it in; replay knows no rule itself): the rule IDs a live session breaks. */
  judgeSession?: SessionJudge;
}

export function summarise(sessions: SessionResult[]): ReplaySummary {
  const s: ReplaySummary = {
    sessions: sessions.length,
    interactions: 0,
    same: 0,
    breaking: 0,
    changed: 0,
    warning: 0,
    compatible: 0,
    skipped: 0,
    differences: { breaking: 0, changed: 0, warning: 0, compatible: 0 },
    volatileSkipped: 0,
  };
  for (const session of sessions) {
    for (const i of session.interactions) {
      s.interactions += 1;
      if (i.outcome === 'same') s.same += 1;
      else if (i.outcome === 'skipped' || i.outcome === 'unanswered') s.skipped += 1;
      else s[i.outcome] += 1;
      for (const d of i.differences) s.differences[d.verdict] += 1;
      s.volatileSkipped += i.volatileSkipped ?? 0;
    }
  }
  return s;
}

/** `path`: a cassette file, several, or a directory of them (read as one; --update and
 * --calibrate need one file). */
export async function replayCassette(path: string | readonly string[], options: ReplayOptions): Promise<ReplayResult> {
  const hasCommand = options.command !== undefined && options.command.length > 0;
  if (hasCommand === (options.url !== undefined)) {
    throw new CassetteError(
      'MCPC_USAGE',
      'replay needs exactly one target: a server command (after --) for stdio, or --url <endpoint> for Streamable HTTP',
    );
  }
  const input = loadCassetteInput(path);
  // Several files are read as one cassette that carries the first one's top level.
  const finding = input.cassette.finding;
  if (finding) {
    if (options.calibrate !== undefined)
      throw new CassetteError(
        'MCPC_USAGE',
        "--calibrate learns from a recorded session; a fuzz finding's cassette holds the faulty answers of one",
      );
    checkFindingReplay(finding, { ...options, single: input.single !== undefined });
  }
  if (options.calibrate !== undefined) return calibrateCassette(oneCassetteFile(input, 'replay --calibrate'), options);
  if (options.force)
    throw new CassetteError('MCPC_USAGE', '--force only applies to --calibrate (learn from a build other than the recorded one)');
  if (options.update) oneCassetteFile(input, 'replay --update');
  const cassettePath = input.single ?? input.files[0]!;
  const cassette = input.cassette;
  const settings = replaySettings(cassettePath, options, finding);
  if (options.reset) runReset(options.reset);
  const started = Date.now();
  const agent = options.url ? new Agent({ connections: 16 }) : undefined;
  const run: ReplayRun = {
    options,
    hasCommand,
    cassette,
    finding,
    ...settings,
    memory: newMemory(cassette.sessions),
    agent,
    secretHeaders: options.update ? secretHeadersOf(cassette, options.redactHeaders) : [],
  };
  let played: Played;
  try {
    played = await playAll(run);
  } finally {
    await agent?.close();
  }
  const { sessions, error, findingVerdict } = played;
  const update = options.update ? await updateCassette(run, cassettePath, played) : undefined;
  const summary = summarise(sessions);
  return {
    cassette: cassettePath,
    target: hasCommand ? { command: [...options.command!] } : { url: options.url! },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    outcome: error
      ? 'error'
      : findingVerdict
        ? findingVerdict.reproduced
          ? 'breaking'
          : 'passed'
        : summary.breaking > 0
          ? 'breaking'
          : summary.changed > 0
            ? 'changed'
            : 'passed',
    ...(error ? { error } : {}),
    summary,
    sessions,
    ...(update ? { update } : {}),
    ...(findingVerdict ? { finding: findingVerdict } : {}),
  };
}

/** The timeout, content policy and ignores: the options first, then the config file. */
function replaySettings(
  cassettePath: string,
  options: ReplayOptions,
  finding: ReplayRun['finding'],
): Pick<ReplayRun, 'timeoutMs' | 'timeoutGiven' | 'content' | 'ignore'> {
  const config = options.config === false ? undefined : loadReplayConfig(options.config);
  const fromConfig: ReturnType<typeof settingsFor> = config ? settingsFor(config, cassettePath) : { ignore: [] };
  // A hang found by the fuzzer is a hang past its --timeout: the same deadline, unless one is given.
  const timeoutMs =
    options.timeoutMs ?? fromConfig.timeoutMs ?? (finding?.kind === 'hang' ? finding.timeoutMs : undefined) ?? DEFAULT_TIMEOUT_MS;
  const content = options.content ?? fromConfig.content ?? 'fail';
  if (!(timeoutMs > 0))
    throw new CassetteError('MCPC_USAGE', `--timeout must be a positive number of milliseconds, got ${String(options.timeoutMs)}`);
  const ignore = [...fromConfig.ignore, ...compileIgnores(options.ignore)];
  return { timeoutMs, timeoutGiven: options.timeoutMs !== undefined || fromConfig.timeoutMs !== undefined, content, ignore };
}

/** What playing every session gave: a session after one that could not run is skipped. */
interface Played {
  sessions: SessionResult[];
  taped: TapedSession[];
  error: ReplayResult['error'];
  findingVerdict: ReplayResult['finding'];
}

async function playAll(run: ReplayRun): Promise<Played> {
  const { cassette, options } = run;
  const played: Played = { sessions: [], taped: [], error: undefined, findingVerdict: undefined };
  for (const [i, recorded] of cassette.sessions.entries()) {
    if (played.error) {
      played.sessions.push({
        ...sessionBase(recorded, i + 1),
        outcome: 'skipped',
        interactions: [],
        note: 'not replayed: the replay stopped at an earlier session',
      });
      continue;
    }
    options.onSessionStart?.(i + 1, cassette.sessions.length, recorded);
    const one = await replaySession(run, recorded, i);
    if (one.findingVerdict) played.findingVerdict = one.findingVerdict;
    if (one.error) played.error = one.error;
    played.sessions.push(one.result);
    if (one.taped) played.taped.push(one.taped);
    options.onSession?.(one.result, cassette.sessions.length);
  }
  return played;
}

/** --update: every session that changed is replaced by its live traffic; nothing is written when
 * the replay could not run to the end. */
async function updateCassette(run: ReplayRun, cassettePath: string, played: Played): Promise<UpdateResult> {
  const { sessions, taped, error } = played;
  const { options } = run;
  const changed = taped.filter((s) => needsUpdate(s.result));
  const kept = sessions.filter((s) => !changed.some((c) => c.result === s)).map((s) => s.index);
  if (error) {
    return {
      written: false,
      replaced: [],
      kept: sessions.map((s) => s.index),
      conflicts: [],
      note: 'the replay could not run to the end, so the cassette was not changed',
    };
  }
  if (!changed.length)
    return { written: false, replaced: [], kept, conflicts: [], note: 'every session answered as recorded; nothing to update' };
  const target = { ...(run.hasCommand ? { command: options.command! } : { url: options.url! }), cwd: options.cwd ?? process.cwd() };
  const replacements = new Map(changed.map((s) => [s.recorded.id, rebuildSession(s, target)]));
  const written = await writeUpdate(cassettePath, run.cassette, replacements);
  const refused = new Set(written.conflicts.map((c) => c.id));
  return {
    written: written.written,
    replaced: changed.filter((s) => !refused.has(s.recorded.id)).map((s) => s.result.index),
    kept,
    conflicts: written.conflicts,
  };
}

/** The process exit code for a result: 2 could not run (or, with --update, a changed session
 * could not be written), 1 breaking (or warnings when strict), 0 otherwise; 0 after an update or
 * a calibration that was written, whatever changed: the changes were meant (or volatile). */
export function exitCodeFor(result: ReplayResult, strict = false): number {
  if (result.outcome === 'error') return 2;
  if (result.finding) return result.finding.reproduced ? 1 : 0;
  if (result.calibration) return result.calibration.written ? 0 : 2;
  if (result.update) return result.update.conflicts.length ? 2 : 0;
  if (result.summary.breaking > 0 || result.summary.changed > 0) return 1;
  if (strict && result.summary.warning > 0) return 1;
  return 0;
}
