/**
 * Replay of a fuzz finding's cassette (`mcp-cassette fuzz` writes them): the recorded answers are
 * the faulty ones, so they are not compared; what is judged is whether the live server does it
 * again (lib/fuzz-finding.ts): reproduced (exit 1) or not (exit 0, the build fixed it). Rule
 * findings need the validator, which the composition root hands in (`judgeSession`): replay
 * itself knows no rule.
 */
import type { CassetteFinding, RecordedSession } from '../lib/cassette/cassette.js';
import { CassetteError } from '../lib/errors.js';
import { reproduces } from '../lib/fuzz-finding.js';
import { isObject } from '../lib/plain-object.js';
import type { LiveConnection } from './live/connection.js';
import { StdioConnection } from './live/stdio.js';
import type { PlayOutcome } from './play-model.js';
import type { FindingVerdict } from './types.js';
import { rebuildSession, type LiveTarget, type TapedSession } from './update.js';

/** The rule IDs the validator finds in a session's server messages. */
export type SessionJudge = (session: RecordedSession) => Promise<readonly string[]>;

/** The findings seen on the server's own output, which only a stdio replay sees. */
const OWN_OUTPUT: Partial<Record<CassetteFinding['kind'], string>> = { 'stderr-panic': 'stderr', 'stdout-noise': 'stdout' };

/** Refuses what a finding's cassette cannot be used for, before anything runs. */
export function checkFindingReplay(
  finding: CassetteFinding,
  options: { update?: boolean; url?: string; judgeSession?: SessionJudge; single: boolean },
): void {
  if (!options.single)
    throw new CassetteError('MCPC_USAGE', "a fuzz finding's cassette replays on its own: name its file, not a folder or several files");
  if (options.update)
    throw new CassetteError(
      'MCPC_USAGE',
      "--update would record the faulty answers of a fuzz finding's cassette; replay it to see whether the build still does it, and delete the file once it is fixed",
    );
  const stream = OWN_OUTPUT[finding.kind];
  if (options.url && stream)
    throw new CassetteError(
      'MCPC_USAGE',
      `this finding (${finding.kind}) is seen on the server's own ${stream}, which a replay over --url cannot see; replay it with the server command after --`,
    );
  if (finding.kind === 'rule' && !options.judgeSession)
    throw new CassetteError(
      'MCPC_USAGE',
      `this finding (${finding.rule}) is judged by the validator; replay it with the mcp-cassette command`,
    );
}

function linesOf(session: RecordedSession, channel: 'stderr'): string[] {
  return session.messages
    .filter((m) => m.channel === channel)
    .flatMap((m) => (m.raw ?? (m.json !== undefined ? JSON.stringify(m.json) : '')).split('\n'));
}

export async function judgeFinding(
  finding: CassetteFinding,
  taped: TapedSession,
  outcome: PlayOutcome,
  conn: LiveConnection,
  target: LiveTarget,
  judgeSession: SessionJudge | undefined,
): Promise<FindingVerdict> {
  taped.tape.end();
  const live = rebuildSession(taped, target);
  const request = taped.recorded.messages.find((m) => m.seq === finding.seq)?.json;
  const reproduction = reproduces(finding, isObject(request) ? request : {}, {
    session: live,
    ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
    stderr: linesOf(live, 'stderr'),
    noise: conn instanceof StdioConnection ? conn.noise : [],
    ...(finding.kind === 'rule' && judgeSession ? { rules: await judgeSession(live) } : {}),
  });
  return {
    kind: finding.kind,
    ...(finding.rule ? { rule: finding.rule } : {}),
    signature: finding.signature,
    method: finding.method,
    ...(finding.tool ? { tool: finding.tool } : {}),
    recorded: finding.message,
    reproduced: reproduction.reproduced,
    how: reproduction.how,
  };
}
