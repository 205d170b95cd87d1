import { basename } from 'node:path';
import type { Cassette, RecordedSession } from '../lib/cassette/cassette.js';
import { loadCassette } from '../lib/cassette/store.js';
import { expandCassettePaths } from '../lib/cassette/directory.js';
import type { RecordedMessage } from '../lib/message.js';
import type { CommandModule } from '../lib/command.js';
import { SEVERITY_ORDER, type Violation } from '../lib/violation.js';
import { settleBeforeRead } from '../lib/cassette/settle-read.js';
import { listJournals, openJournalHeader, ownerAlive } from '../lib/cassette/settle.js';
import { CassetteError, isCassetteError } from '../lib/errors.js';
import { shellQuote } from '../lib/shell-quote.js';

export interface SessionSummary {
  id: string;
  label?: string;
  transport: string;
  startedAt: string;
  durationMs?: number;
  revision?: string;
  era?: string;
  negotiation?: string;
  client?: string;
  server?: string;
  command: string;
  messages: number;
  byKind: Record<string, number>;
  methods: Record<string, number>;
  end?: string;
  /** HTTP sessions: one `METHOD STATUS [outcome]` per exchange. */
  exchanges?: string[];
  /** The violations the live validator stored with the session (absent: recorded with
   * --no-validate, or by a version that did not store them). */
  violations?: Violation[];
}

export function summarise(cassette: Cassette): SessionSummary[] {
  return cassette.sessions.map((s) => summariseSession(s));
}

function summariseSession(s: RecordedSession): SessionSummary {
  const byKind: Record<string, number> = {};
  const methods: Record<string, number> = {};
  for (const m of s.messages) {
    const key = m.channel === 'stderr' ? 'stderr' : m.kind;
    byKind[key] = (byKind[key] ?? 0) + 1;
    const method = (m.json as { method?: unknown } | undefined)?.method;
    if (typeof method === 'string') methods[method] = (methods[method] ?? 0) + 1;
  }
  const peer = (p?: { name?: string; version?: string }): string | undefined =>
    p?.name ? `${p.name}${p.version ? ` ${p.version}` : ''}` : undefined;
  const client = peer(s.clientInfo);
  const server = peer(s.serverInfo);
  return {
    id: s.id,
    ...(s.label ? { label: s.label } : {}),
    transport: s.transport,
    startedAt: s.startedAt,
    ...(s.durationMs !== undefined ? { durationMs: s.durationMs } : {}),
    ...(s.protocol.revision ? { revision: s.protocol.revision } : {}),
    ...(s.protocol.era ? { era: s.protocol.era } : {}),
    ...(s.protocol.negotiation ? { negotiation: s.protocol.negotiation } : {}),
    ...(client ? { client } : {}),
    ...(server ? { server } : {}),
    command: 'command' in s.target ? s.target.command.join(' ') : `${s.target.listen} -> ${s.target.url}`,
    messages: s.messages.length,
    byKind,
    methods,
    ...(s.end
      ? {
          end: s.end.signal
            ? `signal ${s.end.signal}`
            : s.end.reason === 'recovered' && s.transport !== 'stdio'
              ? 'recovered'
              : `exit ${String(s.end.exitCode)}${s.end.reason === 'recovered' ? ' (recovered)' : ''}`,
        }
      : {}),
    ...(s.exchanges
      ? { exchanges: s.exchanges.map((x) => `${x.method} ${x.status ?? '-'}${x.outcome === 'complete' ? '' : ` ${x.outcome}`}`) }
      : {}),
    ...(s.violations ? { violations: s.violations } : {}),
  };
}

export function formatSummary(path: string, summaries: SessionSummary[]): string {
  const lines = [`${path}: ${summaries.length} session${summaries.length === 1 ? '' : 's'}`];
  summaries.forEach((s, i) => {
    lines.push(`  #${i + 1} ${s.id}${s.label ? ` (${s.label})` : ''}`);
    const ending = s.exchanges ? `HTTP ${s.exchanges.join(', ')}${s.end ? ` (${s.end})` : ''}` : (s.end ?? 'end unknown');
    lines.push(
      `     started ${s.startedAt}, ${s.durationMs !== undefined ? `${Math.round(s.durationMs)} ms` : 'duration unknown'}, ${ending}`,
    );
    lines.push(`     ${s.transport}: ${s.command}`);
    lines.push(
      `     protocol ${s.revision ?? 'unknown'}${s.era ? ` (${s.era}${s.negotiation ? `, via ${s.negotiation}` : ''})` : ''}; client ${s.client ?? 'unknown'}; server ${s.server ?? 'unknown'}`,
    );
    lines.push(
      `     ${s.messages} messages: ${Object.entries(s.byKind)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ')}`,
    );
    const methods = Object.entries(s.methods);
    if (methods.length) lines.push(`     methods: ${methods.map(([m, n]) => (n > 1 ? `${m} x${n}` : m)).join(', ')}`);
    lines.push(...violationLines(s.violations));
  });
  return lines.join('\n') + '\n';
}

/** Violations stored in the session, worst first, then in message order: one line each. */
function violationLines(violations: Violation[] | undefined): string[] {
  // A session judged live keeps a list, empty when it was clean; no list: it was not judged live
  // (--no-validate, or recorded by a release that kept no empty list: `validate` judges it).
  if (violations === undefined)
    return ['     violations: not judged live (recorded with --no-validate, or by an older release); run mcp-cassette validate'];
  if (violations.length === 0) return ['     violations: none (judged live)'];
  const counts = (['error', 'warning', 'info'] as const)
    .map((level) => [level, violations.filter((v) => v.severity === level).length] as const)
    .filter(([, n]) => n > 0)
    .map(([level, n]) => `${n} ${level}${n === 1 ? '' : 's'}`);
  const sorted = [...violations].sort((a, b) => SEVERITY_ORDER[b.severity] - SEVERITY_ORDER[a.severity] || a.seq - b.seq);
  return [
    `     violations: ${counts.join(', ')}`,
    ...sorted.map((v) => {
      const arrow = v.direction === 'client-to-server' ? 'C>S' : 'S>C';
      return `       ${v.severity.padEnd(7)} ${v.rule} #${v.seq} ${arrow}${v.path ? ` ${v.path}` : ''}: ${v.message}`;
    }),
  ];
}

export function formatMessage(m: RecordedMessage): string {
  const arrow = m.direction === 'client-to-server' ? 'C>S' : m.channel === 'stderr' ? 'ERR' : 'S>C';
  const text = m.raw ?? (m.rawBase64 !== undefined ? `<${m.bytes} bytes, not UTF-8>` : JSON.stringify(m.json));
  const shown = text.length > 160 ? `${text.slice(0, 157)}...` : text;
  return `${String(m.seq).padStart(5)} ${m.t.toFixed(1).padStart(9)}ms ${arrow} ${shown}`;
}

/** `show <cassette...>`: a directory stands for the cassettes in it, each shown in turn. With
 * --json, one file gives `{cassette, sessions}`, several give `{cassettes: [{cassette, sessions}]}`. */
export async function showCommand(cassettes: string | string[], options: { json: boolean; messages: boolean }): Promise<number> {
  await settleBeforeRead(typeof cassettes === 'string' ? [cassettes] : cassettes);
  const paths = expandCassettePaths(typeof cassettes === 'string' ? [cassettes] : cassettes);
  if (options.json) {
    const each = paths.map((path) => ({ cassette: path, sessions: summarise(load(path)) }));
    process.stdout.write(JSON.stringify(each.length === 1 ? each[0] : { cassettes: each }, null, 2) + '\n');
    return 0;
  }
  paths.forEach((path, i) => {
    if (i > 0) process.stdout.write('\n');
    showOne(path, options.messages);
  });
  return 0;
}

/**
 * The cassette, or, when it does not exist yet but a recording's journal lies beside it (a recorder
 * killed with SIGKILL whose process still looks alive: a zombie its parent has not reaped, or
 * another machine's), an error that says so and names the command that writes it.
 */
function load(path: string): ReturnType<typeof loadCassette> {
  try {
    return loadCassette(path);
  } catch (err) {
    const journals = isCassetteError(err) && err.code === 'MCPC_CASSETTE_NOT_FOUND' ? listJournals(path) : [];
    if (journals.length === 0) throw err;
    let pid: number | undefined;
    try {
      const header = openJournalHeader(journals[0]!);
      if (ownerAlive(header)) pid = header.pid;
    } catch {
      // unreadable: settling said why, and recover says it again
    }
    const more = journals.length > 1 ? ` and ${journals.length - 1} more` : '';
    const why =
      pid !== undefined
        ? `its recorder (process ${pid}) still looks alive, so no command adds it by itself. If that recorder was killed, run \`mcp-cassette recover --force ${shellQuote(path)}\` to write its sessions into the cassette; if it is still recording, the cassette is written when it ends`
        : `run \`mcp-cassette recover ${shellQuote(path)}\` to write its sessions into the cassette`;
    throw new CassetteError(
      'MCPC_CASSETTE_NOT_FOUND',
      `cassette ${path} does not exist yet, but a recording left its journal beside it (${basename(journals[0]!)}${more}): ${why}`,
      { cause: err },
    );
  }
}

function showOne(path: string, messages: boolean): void {
  const data = load(path);
  const summaries = summarise(data);
  const options = { messages };
  process.stdout.write(formatSummary(path, summaries));
  if (options.messages) {
    data.sessions.forEach((s, i) => {
      process.stdout.write(`\nsession #${i + 1} ${s.id}\n`);
      for (const m of s.messages) process.stdout.write(formatMessage(m) + '\n');
    });
  }
}

/** The handler of SHOW_COMMAND (show-command.ts), loaded when the command runs. */
export const SHOW_HANDLER: CommandModule['handler'] = async (args) =>
  showCommand((Array.isArray(args.cassette) ? args.cassette : [args.cassette]).map(String), {
    json: Boolean(args.json),
    messages: Boolean(args.messages),
  });
