/**
 * What `serve` reports at the end of a run (engine.ts keeps the tally): the requests it answered,
 * the ones it could not, the client answers that differed from the recording, and the recorded
 * requests never asked for; and the summary printed on stderr.
 */
import type { Difference } from './matcher.js';

export interface UnmatchedReport {
  method: string;
  name?: string;
  message: string;
  closest?: { session: number; seq: number; method: string; name?: string; differences: Difference[] };
}

export interface AnswerMismatch {
  interaction: string;
  method: string;
  message: string;
  differences: Difference[];
}

export interface ServeSummary {
  served: number;
  repeated: number;
  synthesised: number;
  forwarded: number;
  unmatched: UnmatchedReport[];
  answerMismatches: AnswerMismatch[];
  unused: Array<{ session: number; seq: number; method: string; name?: string }>;
  /** The client only probed the protocol revision (`server/discover`) and went away, as the v2
   * SDK's `auto` negotiation does in a process of its own: nothing counts as unused then. */
  probe: boolean;
  /** Unmatched requests or wrong client answers were seen. */
  failed: boolean;
}

/** A run's summary before anything was asked: the engine's tally starts from it, and a report
 * written before the engine has one (`--report` while serve starts) is filled with it. */
export function emptyServeSummary(): ServeSummary {
  return {
    served: 0,
    repeated: 0,
    synthesised: 0,
    forwarded: 0,
    unmatched: [],
    answerMismatches: [],
    unused: [],
    probe: false,
    failed: false,
  };
}

/** The end-of-run summary printed on stderr. */
export function formatSummary(summary: ServeSummary): string {
  const lines = [
    `mcp-cassette serve: ${summary.failed ? 'FAILED' : 'ok'}: ${summary.served} answered from the cassette` +
      (summary.repeated ? `, ${summary.repeated} repeated` : '') +
      (summary.synthesised ? `, ${summary.synthesised} synthesised` : '') +
      (summary.forwarded ? `, ${summary.forwarded} forwarded to the real server` : '') +
      `, ${summary.unmatched.length} unmatched, ${summary.answerMismatches.length} client answer mismatches, ${summary.unused.length} unused`,
  ];
  for (const u of summary.unmatched) lines.push(`  unmatched: ${u.message.replace(/^mcp-cassette: /, '')}`);
  for (const m of summary.answerMismatches) lines.push(`  mismatch: ${m.message.replace(/^mcp-cassette: /, '')}`);
  for (const u of summary.unused.slice(0, 20)) {
    lines.push(`  unused: ${u.method}${u.name !== undefined ? ` ${JSON.stringify(u.name)}` : ''} (session ${u.session}, seq ${u.seq})`);
  }
  if (summary.unused.length > 20) lines.push(`  unused: and ${summary.unused.length - 20} more`);
  return lines.join('\n') + '\n';
}
