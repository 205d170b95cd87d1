import { StdioFramer } from '../framing/stdio-framer.js';
import type { Channel, RecordedMessage } from '../message.js';
import type { Violation } from '../violation.js';
import type { RecordedSession, SessionEnd } from './cassette.js';
import type { SpillFile } from '../framing/spill.js';
import type { JournalEvent, JournalSource } from './journal.js';
import { sessionFacts } from './session-info.js';

type StdioChannel = Exclude<Channel, 'http'>;

export interface FoldOptions {
  recovered?: boolean;
  /** Frames above `spillAbove` bytes go here, not into memory; the cassette writer streams them
   * back. The caller disposes of it once the sessions are written. */
  spill?: SpillFile;
  spillAbove?: number;
  /** Hears every event of the journal as it is read (the settler looks for the recorder's `live`). */
  onEvent?: (event: JournalEvent) => void;
}

/**
 * Rebuilds a session from its journal: chunks are framed per channel, and frames are numbered in
 * the order they were complete on the wire (the journal's order), which is the order the proxy
 * forwarded them.
 */
export function foldJournal(journal: JournalSource, options: FoldOptions = {}): RecordedSession {
  const messages: RecordedMessage[] = [];
  const framer = new StdioFramer((m) => messages.push(m), Infinity, undefined, options.spill, options.spillAbove);
  const events: JournalEvent[] = [];
  const violations: Violation[] = [];
  let last = 0;
  for (const record of journal.records) {
    last = record.t;
    if ('ev' in record) {
      options.onEvent?.(record);
      events.push(record);
      if (record.ev === 'eof' && typeof record.channel === 'string') framer.end(record.channel as StdioChannel, record.t);
      if (record.ev === 'violation') violations.push(record.violation as Violation);
      // Recording paused (disk full) and resumed at line starts: a line cut by the pause ends here.
      if (record.ev === 'gap') for (const c of ['stdin', 'stdout', 'stderr'] as const) framer.end(c, record.t);
      continue;
    }
    if (record.c === 'http-request' || record.c === 'http-response') continue; // not a stdio journal
    framer.push(record.c, record.data, record.t);
  }
  framer.endAll();

  const header = journal.header;
  const base = header.session as Omit<RecordedSession, 'messages' | 'protocol' | 'id' | 'startedAt'>;
  const facts = sessionFacts(messages);
  const exit = events.find((e) => e.ev === 'exit');
  const shutdown = events.find((e) => e.ev === 'shutdown');
  const end: SessionEnd = {
    reason: events.some((e) => e.ev === 'continued') ? 'continued' : options.recovered ? 'recovered' : exit ? 'exit' : 'recovered',
    exitCode: typeof exit?.code === 'number' ? exit.code : null,
    signal: typeof exit?.signal === 'string' ? exit.signal : null,
  };
  if (shutdown && typeof shutdown.by === 'string') end.initiatedBy = shutdown.by as SessionEnd['initiatedBy'];
  if (journal.torn) end.torn = true;

  const session: RecordedSession = {
    id: header.sessionId,
    ...(typeof base.label === 'string' ? { label: base.label } : {}),
    transport: 'stdio',
    startedAt: header.startedAt,
    endedAt: new Date(Date.parse(header.startedAt) + last).toISOString(),
    durationMs: last,
    target: base.target as RecordedSession['target'],
    protocol: facts.protocol,
    ...(facts.clientInfo ? { clientInfo: facts.clientInfo } : {}),
    ...(facts.serverInfo ? { serverInfo: facts.serverInfo } : {}),
    proxy: base.proxy,
    end,
    // A session judged live keeps its list even when it is empty (the header says it was judged).
    ...(violations.length > 0 || Array.isArray((base as { violations?: unknown }).violations) ? { violations } : {}),
    messages,
  };
  return session;
}

/** Any journal to its sessions: one for a stdio proxy run, one or more for an HTTP proxy run. */
export async function foldSessions(journal: JournalSource, options: FoldOptions = {}): Promise<RecordedSession[]> {
  if ((journal.header.session as { transport?: string }).transport === 'streamable-http') {
    const { foldHttpJournal } = await import('./fold-http.js');
    return foldHttpJournal(journal, options);
  }
  return [foldJournal(journal, options)];
}
