/**
 * One recorded session of `replayCassette` played against a fresh live connection (a server
 * process over stdio, or the endpoint over Streamable HTTP), and its result: the interactions
 * judged, the server's stdout noise, and for a fuzz finding's cassette whether the finding is
 * still there. replay.ts plays the sessions in order and writes --update.
 */
import type { Agent } from 'undici';
import type { Cassette, CassetteFinding, RecordedSession } from '../lib/cassette/cassette.js';
import type { ContentPolicy } from './config.js';
import { HttpConnection } from './live/http.js';
import { StdioConnection } from './live/stdio.js';
import type { LiveConnection } from './live/connection.js';
import { LiveTape } from './live/tape.js';
import { volatileOptions } from './calibrate.js';
import type { IgnorePattern } from './normalise.js';
import { worst, type ReplayMemory } from './play-model.js';
import { playSession } from './player.js';
import { VERDICT_RANK, type Difference, type InteractionResult, type ReplayResult, type SessionResult, type Verdict } from './types.js';
import type { TapedSession } from './update.js';
import { judgeFinding } from './finding.js';
import type { ReplayOptions } from './replay.js';

/** What every session of one replay is played with. */
export interface ReplayRun {
  options: ReplayOptions;
  hasCommand: boolean;
  cassette: Cassette;
  finding: CassetteFinding | undefined;
  timeoutMs: number;
  /** A timeout came from the options or the config file (not the default). */
  timeoutGiven: boolean;
  content: ContentPolicy;
  ignore: IgnorePattern[];
  memory: ReplayMemory;
  agent: Agent | undefined;
  secretHeaders: string[];
}

/** One session played: `taped` when its live traffic was taped (--update, a finding). */
export interface SessionPlayed {
  result: SessionResult;
  taped?: TapedSession;
  error?: ReplayResult['error'];
  findingVerdict?: ReplayResult['finding'];
}

export async function replaySession(run: ReplayRun, recorded: RecordedSession, i: number): Promise<SessionPlayed> {
  const { options, finding, cassette } = run;
  const base = sessionBase(recorded, i + 1);
  const clientSent = recorded.messages.some((m) => m.direction === 'client-to-server' && m.json !== undefined);
  // Over --url the client's own GET (listen stream) and DELETE (session end) replay too.
  const clientExchanges =
    !run.hasCommand &&
    (recorded.exchanges ?? []).some((x) => x.mcp && x.outcome !== 'refused' && (x.method === 'GET' || x.method === 'DELETE'));
  if (!clientSent && !clientExchanges) {
    return {
      result: {
        ...base,
        outcome: 'skipped',
        interactions: [],
        note: `nothing to replay: the client sent no message in this session (${recorded.transport === 'streamable-http' ? 'a refused request, or a GET stream, which replays only over --url' : 'a refused request'})`,
      },
    };
  }
  const tape = options.update || finding ? new LiveTape() : undefined;
  const conn = openConnection(run, tape);
  let outcome;
  try {
    outcome = await playSession(recorded, conn, {
      timeoutMs: run.timeoutMs,
      ...(run.timeoutGiven ? { timeoutGiven: true } : {}),
      ignore: run.ignore,
      memory: run.memory,
      ...volatileOptions(cassette, recorded, options.calibrating),
      ...(finding ? { awaitSeq: finding.seq, verbatim: true } : {}),
    });
  } finally {
    await conn.close();
  }
  const result: SessionResult = {
    ...base,
    outcome: 'same',
    interactions: run.content === 'warn' ? outcome.interactions.map(contentAsWarning) : outcome.interactions,
  };
  noteConnection(result, conn);
  const played: SessionPlayed = { result };
  if (finding && tape) {
    const target = run.hasCommand
      ? { command: options.command!, cwd: options.cwd ?? process.cwd() }
      : { url: options.url!, cwd: process.cwd() };
    const verdict = await judgeFinding(finding, { recorded, result, tape, play: outcome }, outcome, conn, target, options.judgeSession);
    played.findingVerdict = verdict;
    // The recorded answers are the faulty ones: not compared. A crash or a hang that is the
    // finding is no failure of the replay.
    result.interactions = [];
    result.note = `a fuzz finding's cassette: the answers are not compared; ${verdict.reproduced ? 'the finding is still there' : 'the finding is gone'}: ${verdict.how}`;
    if (verdict.reproduced) outcome.error = undefined;
  }
  if (outcome.error) {
    played.error = { ...outcome.error, session: i + 1 };
    result.error = played.error;
  }
  result.outcome = sessionOutcome(result);
  if (tape) played.taped = { recorded, result, tape, play: outcome };
  return played;
}

/** A fresh connection for the session: a server process of its own, or the endpoint. */
function openConnection(run: ReplayRun, tape: LiveTape | undefined): LiveConnection {
  const { options } = run;
  if (run.hasCommand) {
    return new StdioConnection({
      command: [...options.command!],
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(tape ? { tape } : {}),
    });
  }
  return new HttpConnection({
    url: options.url!,
    agent: run.agent!,
    ...(options.headers ? { headers: options.headers } : {}),
    ...(tape ? { tape: { tape, secretHeaders: run.secretHeaders } } : {}),
  });
}

/** What the connection noticed besides the answers: headers it could not send (the cassette holds
 * them redacted), and a stdio server's non-JSON stdout. */
function noteConnection(result: SessionResult, conn: LiveConnection): void {
  if (conn instanceof HttpConnection && conn.redactedHeaders.size) {
    result.note = `recorded headers not replayed because the cassette holds them redacted: ${[...conn.redactedHeaders].join(', ')}`;
  }
  if (conn instanceof StdioConnection && conn.noise.length) {
    result.interactions.push({
      seq: 0,
      method: 'stdout',
      outcome: 'warning',
      differences: [
        {
          verdict: 'warning',
          kind: 'stdout-noise',
          path: '',
          message: `the server wrote ${conn.noise.length} non-JSON line(s) to stdout (stdio servers must write only MCP messages): ${conn.noise[0]}`,
          live: conn.noise,
        },
      ],
    });
  }
}

/** Under `content: warn`: a changed output is a warning, the interaction judged again. */
function contentAsWarning(i: InteractionResult): InteractionResult {
  if (!i.differences.some((d) => d.verdict === 'changed')) return i;
  const differences = i.differences.map((d): Difference => (d.verdict === 'changed' ? { ...d, verdict: 'warning' } : d));
  return { ...i, differences, outcome: worst(differences) ?? 'same' };
}

function sessionOutcome(s: SessionResult): SessionResult['outcome'] {
  if (s.error) return 'error';
  let w: Verdict | undefined;
  for (const i of s.interactions) {
    if (i.outcome === 'breaking' || i.outcome === 'changed' || i.outcome === 'warning' || i.outcome === 'compatible') {
      if (!w || VERDICT_RANK[i.outcome] > VERDICT_RANK[w]) w = i.outcome;
    }
  }
  if (w) return w;
  return s.interactions.length && s.interactions.every((i) => i.outcome === 'skipped') ? 'skipped' : 'same';
}

export function sessionBase(s: RecordedSession, index: number): Omit<SessionResult, 'outcome' | 'interactions'> {
  return {
    index,
    id: s.id,
    ...(s.label !== undefined ? { label: s.label } : {}),
    transport: s.transport,
    ...(s.protocol.revision !== undefined ? { revision: s.protocol.revision } : {}),
  };
}
