/**
 * What a view serves: a cassette (one file, several, a directory), a replay report, or the live
 * traffic of a recorder (live-source.ts). The server asks only these questions of it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Cassette } from '../cassette/cassette.js';
import { loadCassetteInput } from '../cassette/cassette-set.js';
import { isDirectory } from '../cassette/directory.js';
import { parseCassette } from '../cassette/store.js';
import { CassetteError, ioReason } from '../errors.js';
import type { RecordedMessage } from '../message.js';
import { isObject } from '../plain-object.js';
import { type SessionDetail, type SessionView, sessionDetail, sessionView } from './view-model.js';

export type Overview =
  | { kind: 'cassette'; title: string; sessions: SessionView[] }
  | { kind: 'live'; title: string; sessions: SessionView[]; capacity: number; dropped: number }
  | { kind: 'replay'; title: string; report: unknown };

export interface ViewSource {
  overview(): Overview;
  /** undefined: no such session. */
  session(index: number): SessionDetail | undefined;
  message(index: number, seq: number): RecordedMessage | undefined;
  /** Live sources: call `listener` whenever something new arrived; returns the unsubscribe. */
  subscribe?(listener: () => void): () => void;
}

export function cassetteSource(cassette: Cassette, title: string): ViewSource {
  const bySeq = new Map<number, Map<number, RecordedMessage>>();
  const details = new Map<number, SessionDetail>();
  return {
    overview: () => ({ kind: 'cassette', title, sessions: cassette.sessions.map((s, i) => sessionView(s, i)) }),
    session(index) {
      const s = cassette.sessions[index];
      if (!s) return undefined;
      let d = details.get(index);
      if (!d) details.set(index, (d = sessionDetail(s, index)));
      return d;
    },
    message(index, seq) {
      const s = cassette.sessions[index];
      if (!s) return undefined;
      let map = bySeq.get(index);
      if (!map) bySeq.set(index, (map = new Map(s.messages.map((m) => [m.seq, m]))));
      return map.get(seq);
    },
  };
}

/** A replay report (`replay --report json=FILE`, replay/replay-report.schema.json) by its shape. */
function isReplayReport(v: unknown): boolean {
  return isObject(v) && Array.isArray(v.sessions) && isObject(v.summary) && typeof v.outcome === 'string' && typeof v.cassette === 'string';
}

export function replaySource(report: unknown, title: string): ViewSource {
  return { overview: () => ({ kind: 'replay', title, report }), session: () => undefined, message: () => undefined };
}

/** `view <path...>`: a directory or a cassette file (or several), or one replay report. */
export function loadViewSource(paths: readonly string[]): ViewSource {
  if (paths.length === 0) throw new CassetteError('MCPC_USAGE', 'view needs a cassette, a directory of cassettes or a replay report');
  const first = resolve(paths[0]!);
  if (paths.length === 1 && !isDirectory(first) && !first.endsWith('.cassette.json')) {
    let text: string;
    try {
      text = readFileSync(first, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'MCPC_CASSETTE_NOT_FOUND' : 'MCPC_FILE_UNREADABLE';
      throw new CassetteError(
        code,
        `cannot read ${first} (${ioReason(err)}); name a cassette, a directory of cassettes or a replay report`,
        { cause: err },
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (isReplayReport(parsed)) return replaySource(parsed, first);
    if (!isObject(parsed) || parsed.format !== 'mcp-cassette')
      throw new CassetteError(
        'MCPC_CASSETTE_INVALID',
        `${first} is neither a cassette (format "mcp-cassette") nor a replay report (replay --report json=FILE); name one of those`,
      );
    return cassetteSource(parseCassette(first, text), first);
  }
  const input = loadCassetteInput(paths);
  return cassetteSource(input.cassette, input.files.length === 1 ? input.files[0]! : `${input.files.length} cassettes`);
}
