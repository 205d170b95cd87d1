/** RULES.md §18: the stdio transport (STDIO). */
import { messageBytes } from '../../lib/message.js';
import { isObject, type Observed, type Rule } from '../rule.js';
import { revisionOf, sessionSlot, type SessionState } from '../session-state.js';
import { pointerToken } from '../../lib/json-pointer.js';

/** A multi-line JSON value in the making on one pipe: the lines so far and the scanner's place. */
interface Run {
  first: number;
  last: number;
  lines: number;
  /** The lines joined back, a newline inside a string escaped, so that JSON.parse can judge it. */
  text: string;
  depth: number;
  inString: boolean;
  escaped: boolean;
}

interface FramingVerdict {
  /** The frame is a line of a JSON value spread over several lines (STDIO-FRAMING reports it, so
   * STDIO-STDOUT-CLEAN and STDIO-STDIN-CLEAN must not). */
  fragment: boolean;
  /** What STDIO-FRAMING reports on this frame, if anything. */
  problem?: string;
}

interface StdioState {
  runs: Map<string, Run>;
  /** The verdict for the frame being judged (several rules ask about the same frame). */
  seq: number;
  verdict: FramingVerdict;
  /** STDIO-PROBE: the client's first request, and whether a server/discover succeeded. */
  firstRequest?: { method: string; modern: boolean };
  discovered?: boolean;
}

const stdioState = sessionSlot<StdioState>(() => ({ runs: new Map(), seq: -1, verdict: { fragment: false } }));

const RPC_KINDS = new Set(['request', 'notification', 'response', 'error']);

/** Lines beyond which an unfinished value is given up on (a stray `{` in a log, not a message). */
const MAX_RUN_LINES = 10_000;

const MAX_RUN_CHARS = 8 * 1024 * 1024;

/** Moves the bracket scanner over one line; strings are tracked so `{` inside them is ignored. */
function scan(run: Run, line: string): void {
  for (const ch of line) {
    if (run.inString) {
      if (run.escaped) run.escaped = false;
      else if (ch === '\\') run.escaped = true;
      else if (ch === '"') run.inString = false;
    } else if (ch === '"') run.inString = true;
    else if (ch === '{' || ch === '[') run.depth++;
    else if (ch === '}' || ch === ']') run.depth--;
  }
}

const lineRange = (run: Run) => (run.first === run.last ? `line #${run.first}` : `lines #${run.first}-#${run.last}`);

/**
 * Whether a stdio frame is a line of one JSON value printed over several lines (pretty-printed
 * JSON, or a raw newline inside a string), decided without looking ahead: a text line that opens
 * `{`/`[` without closing it starts a run, the following non-message lines continue it, and the
 * line that balances the brackets ends it. The verdict is computed once per frame.
 */
function framingVerdict(o: Observed, state: SessionState): FramingVerdict {
  const s = stdioState(state);
  if (s.seq === o.msg.seq) return s.verdict;
  s.seq = o.msg.seq;
  s.verdict = judgeLine(o, s);
  return s.verdict;
}

/** For STDIO-STDOUT-CLEAN / STDIO-STDIN-CLEAN: this line is STDIO-FRAMING's to report. */
function framingFragment(o: Observed, state: SessionState): boolean {
  return o.transport === 'stdio' && framingVerdict(o, state).fragment;
}

function judgeLine(o: Observed, s: StdioState): FramingVerdict {
  const channel = o.msg.channel;
  if (channel !== 'stdin' && channel !== 'stdout') return { fragment: false };
  const run = s.runs.get(channel);
  // Only a text line can open a run; nothing else needs its text read back.
  if (!run && o.msg.kind !== 'text') return { fragment: false };
  const text = o.msg.rawBase64 === undefined ? messageBytes(o.msg).toString('utf8').replace(/\r$/, '') : undefined;
  if (run) {
    if (text === undefined || RPC_KINDS.has(o.msg.kind)) {
      s.runs.delete(channel);
      return {
        fragment: false,
        problem: `${lineRange(run)} opened a JSON value over several lines that was never closed before this message`,
      };
    }
    run.text += run.inString ? `\\n${text}` : `\n${text}`;
    run.last = o.msg.seq;
    run.lines++;
    scan(run, text);
    if (run.depth <= 0 && !run.inString) {
      s.runs.delete(channel);
      return { fragment: true, problem: closedRun(run) };
    }
    if (run.lines > MAX_RUN_LINES || run.text.length > MAX_RUN_CHARS) {
      s.runs.delete(channel);
      return { fragment: true, problem: `${lineRange(run)} opened a JSON value over ${run.lines} lines that never closed` };
    }
    return { fragment: true };
  }
  // Only a line that looks like the start of a JSON message opens a run: `{` or `[` alone (a
  // pretty printer's first line), or `{"…` cut by a raw newline.
  if (text === undefined) return { fragment: false };
  const start = text.trim();
  if (start !== '{' && start !== '[' && !start.startsWith('{"')) return { fragment: false };
  const fresh: Run = { first: o.msg.seq, last: o.msg.seq, lines: 1, text, depth: 0, inString: false, escaped: false };
  scan(fresh, text);
  if (fresh.depth <= 0 && !fresh.inString) return { fragment: false }; // one bad line: STDIO-*-CLEAN's
  s.runs.set(channel, fresh);
  return { fragment: true };
}

function closedRun(run: Run): string {
  let value: unknown;
  try {
    value = JSON.parse(run.text);
  } catch {
    return `${lineRange(run)} hold one bracketed value spread over several lines that is not valid JSON either`;
  }
  const what =
    isObject(value) && value.jsonrpc === '2.0'
      ? `one JSON-RPC message${typeof value.method === 'string' ? ` (${value.method})` : ''}`
      : 'one JSON value';
  return `${lineRange(run)} are ${what} split over ${run.lines} lines (pretty-printed, or a raw newline inside a string); write each message as a single line with no embedded newline`;
}

const isModernRequest = (json: Record<string, unknown>): boolean => (revisionOf(json) ?? '') >= '2026-07-28';

const isMcp = (kind: string) => kind === 'request' || kind === 'notification' || kind === 'response' || kind === 'error';

export const stdioRules: Rule[] = [
  {
    id: 'STDIO-STDOUT-CLEAN',
    level: 'MUST NOT',
    obs: '1',
    era: 'all',
    transport: 'stdio',
    source: 'basic/transports/stdio.mdx',
    title: 'Every stdout line is an MCP message: no banners or log lines',
    on: ['other', 'nonjson'],
    check(o, report, state) {
      // A line of a message printed over several lines is STDIO-FRAMING's.
      if (o.msg.channel === 'stdout' && !isMcp(o.msg.kind) && o.msg.kind !== 'batch' && !framingFragment(o, state)) {
        const text = o.msg.raw ?? (o.msg.rawBase64 !== undefined ? '<not UTF-8>' : JSON.stringify(o.msg.json));
        report('', `non-MCP output on stdout: ${JSON.stringify(text.slice(0, 80))}; log to stderr instead`);
      }
    },
  },
  {
    id: 'STDIO-STDIN-CLEAN',
    level: 'MUST NOT',
    obs: '1',
    era: 'all',
    transport: 'stdio',
    source: 'basic/transports/stdio.mdx',
    title: 'Every stdin line is an MCP message',
    on: ['other', 'nonjson'],
    check(o, report, state) {
      if (o.msg.channel === 'stdin' && !isMcp(o.msg.kind) && o.msg.kind !== 'batch' && !framingFragment(o, state)) {
        report('', `non-MCP input on stdin: ${JSON.stringify((o.msg.raw ?? '').slice(0, 80))}`);
      }
    },
  },
  {
    id: 'STDIO-NO-SERVER-REQ',
    level: 'MUST NOT',
    obs: '1',
    era: 'modern',
    transport: 'stdio',
    source: 'basic/transports/stdio.mdx §Receiving Messages',
    title: "No JSON-RPC requests on a 2026-07-28 server's stdout",
    on: ['request'],
    check(o, report) {
      if (o.msg.channel === 'stdout' && o.msg.kind === 'request') {
        report(
          '',
          `server→client request ${String((o.json ?? {}).method)}; on 2026-07-28 it belongs in an InputRequiredResult's inputRequests`,
        );
      }
    },
  },
  {
    id: 'STDIO-NO-CLIENT-RESP',
    level: 'MUST NOT',
    obs: '1',
    era: 'modern',
    transport: 'stdio',
    source: 'basic/transports/stdio.mdx §Sending Messages',
    title: "No JSON-RPC responses on a 2026-07-28 client's stdin",
    on: ['response'],
    check(o, report) {
      if (o.msg.channel === 'stdin' && (o.msg.kind === 'response' || o.msg.kind === 'error'))
        report('', 'client→server response on a 2026-07-28 connection');
    },
  },
  {
    // No `on`: the framing scanner must see every line of both pipes (see framingVerdict).
    id: 'STDIO-FRAMING',
    level: 'MUST NOT',
    obs: '1',
    era: 'all',
    transport: 'stdio',
    source: 'basic/transports/stdio.mdx',
    title: 'One message per line, with no raw newline inside a message',
    check(o, report, state) {
      const { problem } = framingVerdict(o, state);
      if (problem) report('', problem);
    },
  },
  {
    // Passive evidence only: a client that speaks both eras shows it by sending `initialize` in
    // a session where it also sent a 2026-07-28 request. Whether the fallback is keyed to one
    // error code cannot be seen in a single session (the MUST NOT half of the rule).
    id: 'STDIO-PROBE',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    transport: 'stdio',
    source: 'basic/transports/stdio.mdx §Backward Compatibility',
    title: 'A dual-era client probes with server/discover first, and keeps to it when it succeeds',
    on: ['server-result server/discover', 'client-request'],
    check(o, report, state) {
      const s = stdioState(state);
      const json = o.json;
      if (!json) return;
      if (o.msg.direction === 'server-to-client' && o.request?.method === 'server/discover' && isObject(json.result)) {
        const asked = revisionOf(o.request.json);
        if (asked && Array.isArray(json.result.supportedVersions) && json.result.supportedVersions.includes(asked)) s.discovered = true;
        return;
      }
      if (o.msg.direction !== 'client-to-server' || typeof json.method !== 'string' || !('id' in json)) return;
      const first = s.firstRequest;
      if (!first) s.firstRequest = { method: json.method, modern: isModernRequest(json) };
      if (json.method !== 'initialize') return;
      if (s.discovered) {
        report(
          '/method',
          'the client falls back to initialize although server/discover answered with a DiscoverResult listing the version it asked for; a modern answer means the server speaks 2026-07-28: do not fall back',
        );
      } else if (first && first.modern && first.method !== 'server/discover') {
        report(
          '/method',
          `the client sent a 2026-07-28 ${first.method} before anything else and now falls back to initialize; a client that speaks both eras should probe with server/discover before any other request`,
        );
      }
    },
  },
  {
    // What an OAuth flow over stdio leaves in the messages: a bearer token carried in `_meta`
    // by the client, or an HTTP-style challenge in an error from the server.
    id: 'STDIO-NO-OAUTH',
    level: 'SHOULD NOT',
    obs: '1',
    era: 'all',
    transport: 'stdio',
    source: 'basic/authorization/index.mdx §Protocol Requirements',
    title: 'No OAuth tokens or challenges inside stdio messages',
    on: ['client-json', 'server-error'],
    check(o, report) {
      const json = o.json;
      if (!json) return;
      if (o.msg.direction === 'client-to-server' && isObject(json.params) && isObject(json.params._meta)) {
        for (const [key, value] of Object.entries(json.params._meta)) {
          if (key.split('/').pop()!.toLowerCase() === 'authorization' && typeof value === 'string' && /^Bearer\s/i.test(value)) {
            report(
              `/params/_meta/${pointerToken(key)}`,
              'a bearer token inside a stdio message; a stdio server takes its credentials from the environment, not from an OAuth flow',
            );
          }
        }
      }
      const data = isObject(json.error) && isObject(json.error.data) ? json.error.data : undefined;
      if (o.msg.direction === 'server-to-client' && data) {
        const key = Object.keys(data).find((k) => ['www-authenticate', 'resource_metadata'].includes(k.toLowerCase()));
        if (key)
          report(
            `/error/data/${pointerToken(key)}`,
            `an OAuth challenge (${key}) in an error on stdio; a stdio server takes its credentials from the environment`,
          );
      }
    },
  },
];
