import { readdirSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { SEVERITY_ORDER, type Severity } from '../violation.js';
import type { RecordedMessage } from '../message.js';
import type { RecordedSession } from './cassette.js';
import { foldSessions } from './fold.js';
import { SpillFile } from '../framing/spill.js';
import { LIVE_EVENT, openJournal, type JournalEvent, type JournalFinish, type JournalHeader } from './journal.js';
export { LIVE_EVENT, type JournalFinish } from './journal.js';
import { appendLocked, withCassetteLock } from './store.js';
import { settleHooks } from './settle-hooks.js';

/**
 * Settling: the journals that recorders leave beside a cassette become sessions of that cassette.
 *
 * A stdio recorder ends with its server: it closes its journal (every forwarded byte is on disk
 * already) and hands it to a background finisher (`finish-journal`, started detached so that a
 * host that kills the recorder's process group cannot stop it), which settles it. Every command
 * that reads cassettes settles first too, so a session is never missing when read, whatever
 * killed the recorder or its finisher. One function does it for all of them, under the
 * cassette's lock, so two settlers never fold one journal twice: which journals, how each is
 * folded (its header's `finish`: --overwrite, validation, --sample) and what was cut short.
 */

/** A frame cut short where its journal ends (a SIGKILL mid-write): kept, and said. */
export interface CutFrame {
  session: string;
  channel: RecordedMessage['channel'];
  bytes: number;
}

export interface SettleResult {
  cassette: string;
  /** Sessions written into the cassette. */
  sessions: RecordedSession[];
  /** Folded but left out by --sample. */
  sampledOut: number;
  /** Journals folded (and deleted). */
  journals: string[];
  /** Journals left alone, with the reason (a recorder still running, a journal that cannot be read). */
  skipped: { path: string; reason: string }[];
  cut: CutFrame[];
  /** Messages judged when folded (live validation had not judged them all). */
  judged: number;
  violations: number;
  /** Violations at a journal's --fail-on level are stored. */
  failed: boolean;
}

export function listJournals(cassettePath: string): string[] {
  const dir = dirname(cassettePath);
  const prefix = `.${basename(cassettePath)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.endsWith('.journal'))
    .map((n) => join(dir, n))
    .sort();
}

/**
 * The sessions the journals beside a cassette hold, folded but neither judged nor written: for a
 * process that must know what a recorder it ran has recorded before that recorder's finisher is
 * done (`serve` running `record` in its place). A journal that cannot be read is left out.
 */
export async function journalSessions(cassette: string): Promise<RecordedSession[]> {
  const out: RecordedSession[] = [];
  for (const path of listJournals(cassette)) {
    try {
      out.push(...(await foldSessions(openJournal(path))));
    } catch {
      // torn beyond reading, or gone meanwhile: the settler says what it is
    }
  }
  return out;
}

/** A journal's header alone (who wrote it, and how it is to be folded). */
export function openJournalHeader(path: string): JournalHeader {
  return openJournal(path).header;
}

/** A journal whose recorder still runs must not be folded: its session is not over. */
export function ownerAlive(header: Pick<JournalHeader, 'pid' | 'hostname'>): boolean {
  if (header.hostname !== hostname()) return true; // cannot tell from here; leave it alone
  try {
    process.kill(header.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface SettleOptions {
  /** Journals to fold whatever their recorder looks like (the finisher's own: its recorder may
   * not have exited yet when the finisher starts). */
  mine?: readonly string[];
  /** Fold journals whose recorder still looks alive (`recover --force`). */
  force?: boolean;
  /** Only these journals. */
  only?: readonly string[];
  /** Leave a journal that would need judging (the recorder at its exit: that is its finisher's
   * work); it is reported in `skipped`. */
  noJudging?: boolean;
  /** Read the cassette without the schema check (the recorder at its exit: parseCassette `light`). */
  light?: boolean;
  /** How often a lock held by another process is tried again (default 100; 0: give up at once). */
  lockRetries?: number;
}

/** The reason a journal left for judging is skipped with (SettleOptions.noJudging). */
export const NEEDS_JUDGING = 'its messages are still to be judged';

/**
 * Folds the journals of `cassette` whose recorder is gone (and `mine`) into it, under its lock,
 * then deletes them. Each journal is folded as its header says (`finish`); live verdicts stand
 * when its recorder journaled that it judged every message, otherwise every message is judged
 * now (when a judge is plugged in). A journal that cannot be read is left and reported.
 */
export async function settleJournals(cassette: string, options: SettleOptions = {}): Promise<SettleResult> {
  const result: SettleResult = {
    cassette,
    sessions: [],
    sampledOut: 0,
    journals: [],
    skipped: [],
    cut: [],
    judged: 0,
    violations: 0,
    failed: false,
  };
  const only = options.only ? new Set(options.only) : undefined;
  const journals = (): string[] => listJournals(cassette).filter((j) => !only || only.has(j));
  // Nothing to take the lock for (the common case of a reader): no journal beside the cassette.
  if (journals().length === 0) return result;
  const mine = new Set(options.mine ?? []);
  await withCassetteLock(
    cassette,
    async () => {
      const spill = new SpillFile();
      try {
        let overwrite = false;
        const batch: RecordedSession[] = [];
        for (const path of journals()) {
          const folded = await foldJournal(path, options, mine, spill, result);
          if (!folded) continue;
          const kept = await judgeAndSample(path, folded, options, result);
          if (!kept) continue;
          overwrite ||= folded.finish.overwrite === true;
          batch.push(...kept);
          result.journals.push(path);
        }
        if (result.journals.length === 0) return;
        // One write for every journal; a journal whose sessions were all sampled out still goes.
        if (batch.length > 0 || overwrite) await appendLocked(cassette, batch, { overwrite, light: options.light === true });
        result.sessions = batch;
        for (const path of result.journals) {
          try {
            unlinkSync(path);
          } catch {
            // gone already
          }
        }
      } finally {
        spill.dispose();
      }
    },
    options.lockRetries,
  );
  return result;
}

/** A journal folded into its sessions, with how its header says to finish them. */
interface Folded {
  sessions: RecordedSession[];
  finish: JournalFinish;
  /** Its recorder journaled that live validation judged every message. */
  liveComplete: boolean;
}

/** Folds one journal; undefined (and why, in `skipped`) when its recorder still runs or it cannot
 * be read. */
async function foldJournal(
  path: string,
  options: SettleOptions,
  mine: Set<string>,
  spill: SpillFile,
  result: SettleResult,
): Promise<Folded | undefined> {
  try {
    const journal = openJournal(path);
    if (!options.force && !mine.has(path) && ownerAlive(journal.header)) {
      result.skipped.push({ path, reason: `its recorder (process ${journal.header.pid}) is still running` });
      return undefined;
    }
    let liveComplete = false;
    const sessions = await foldSessions(journal, {
      spill,
      onEvent: (e: JournalEvent) => {
        if (e.ev === LIVE_EVENT) liveComplete = e.complete === true;
      },
    });
    return { sessions, finish: (journal.header.finish ?? {}) as JournalFinish, liveComplete };
  } catch (err) {
    result.skipped.push({ path, reason: (err as Error).message });
    return undefined;
  }
}

/** Judges what live validation left (when a judge is plugged in), notes the frames the journal's
 * end cut, and applies --sample: the sessions that go into the cassette; undefined when the
 * journal is left for judging (SettleOptions.noJudging). */
async function judgeAndSample(
  path: string,
  folded: Folded,
  options: SettleOptions,
  result: SettleResult,
): Promise<RecordedSession[] | undefined> {
  const { sessions, finish, liveComplete } = folded;
  const scope = finish.validate === false ? undefined : !liveComplete ? 'all' : finish.judgeWhenComplete;
  if (scope && options.noJudging && sessions.length > 0) {
    result.skipped.push({ path, reason: NEEDS_JUDGING });
    return undefined;
  }
  if (scope && settleHooks().judge && sessions.length > 0) {
    const r = await settleHooks().judge!(sessions, scope, finish.failOn);
    result.judged += r.judged;
    result.violations += r.violations;
    result.failed ||= r.failed;
  } else if (finish.failOn && liveComplete) {
    result.failed ||= sessions.some((s) => (s.violations ?? []).some((v) => atLeast(v.severity, finish.failOn!)));
  }
  for (const s of sessions) result.cut.push(...cutFrames(s));
  const kept = finish.sampling !== undefined && settleHooks().select ? await settleHooks().select!(sessions, finish.sampling) : sessions;
  result.sampledOut += sessions.length - kept.length;
  return kept;
}

function atLeast(severity: Severity, level: Severity): boolean {
  return SEVERITY_ORDER[severity] >= SEVERITY_ORDER[level];
}

/** The frames of a session that its journal's end cut (no newline, a torn record). */
function cutFrames(s: RecordedSession): CutFrame[] {
  if (s.transport !== 'stdio' || s.end?.reason === 'exit') return [];
  const out: CutFrame[] = [];
  const lastOf = new Map<string, RecordedMessage>();
  for (const m of s.messages) lastOf.set(m.channel, m);
  for (const m of lastOf.values()) {
    if (!m.unterminated) continue;
    out.push({ session: s.id, channel: m.channel, bytes: m.bytes });
  }
  return out;
}
