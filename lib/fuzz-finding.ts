/**
 * How a fuzz finding is seen, in one place: `mcp-cassette fuzz` (validators/fuzz) uses it to judge
 * what a mutated request drew, and `replay` of a finding's cassette uses it to say whether the
 * build still does it. A finding is data about the server, never an exception of ours.
 */
import type { CassetteFinding, RecordedSession } from './cassette/cassette.js';
import { isObject } from './plain-object.js';

/** The first line a runtime writes when it reports a failure nobody handled: a Go panic, a Rust
 * panic, a Python traceback, V8's fatal errors, .NET and JVM unhandled exceptions, a Node
 * unhandled rejection, a native crash. A Node server's own logging of a handled error does not
 * start this way. */
const PANIC: readonly RegExp[] = [
  /^panic: /,
  /^fatal error: /,
  /^thread '[^']*' panicked at /,
  /^Traceback \(most recent call last\):/,
  /^Fatal Python error: /,
  /^FATAL ERROR: /,
  /^Unhandled exception\. /,
  /^Exception in thread "/,
  /^\[UnhandledPromiseRejection/,
  /^Segmentation fault/,
  /^==\d+==ERROR: AddressSanitizer/,
];

/** The stderr line that reports a panic, trimmed to 200 characters, or undefined. */
export function panicLine(lines: readonly string[]): string | undefined {
  for (const raw of lines) {
    const line = raw.trimEnd();
    if (PANIC.some((p) => p.test(line))) return line.slice(0, 200);
  }
  return undefined;
}

/** What the client sent, as far as the error-use check needs it. */
export interface RequestFacts {
  method: string;
  /** The arguments break the tool's or prompt's recorded schema. */
  invalidArguments?: boolean;
}

/**
 * A JSON-RPC error where the spec wants something else, for the requests the fuzzer mutates:
 * - a tool that fails (arguments its inputSchema allows, rejected or failing in code) answers a
 *   JSON-RPC error where tools.mdx §Error Handling wants an `isError` result (TOOLS-ERR-EXECUTION;
 *   the catalogue's conflict C3 leaves -32602 for schema-invalid arguments allowed, so that is
 *   not counted);
 * - -32603 Internal error for arguments that break the schema: a server that validates its input
 *   never gets as far as an internal error (TOOLS-ERR-EXECUTION for tools, PROMPTS-ERR-ARGS for
 *   prompts, which want -32602).
 */
export function misusedError(request: RequestFacts, answer: unknown): { rule: string; code: number; message: string } | undefined {
  if (!isObject(answer) || !isObject(answer.error)) return undefined;
  const code = typeof answer.error.code === 'number' ? answer.error.code : Number.NaN;
  const said = typeof answer.error.message === 'string' ? `: "${answer.error.message.slice(0, 120)}"` : '';
  if (request.method === 'tools/call') {
    if (code === -32603)
      return {
        rule: 'TOOLS-ERR-EXECUTION',
        code,
        message: request.invalidArguments
          ? `arguments that break the tool's inputSchema drew -32603 Internal error${said}; input validation errors are isError results (-32602 at most), never an internal error`
          : `the tool failed with -32603 Internal error${said}; an error inside a tool is an isError result, not a JSON-RPC error`,
      };
    if (!request.invalidArguments && Number.isFinite(code) && code !== -32601)
      return {
        rule: 'TOOLS-ERR-EXECUTION',
        code,
        message: `arguments the tool's inputSchema allows drew JSON-RPC error ${code}${said}; a tool that rejects or fails on them answers an isError result`,
      };
    return undefined;
  }
  if (request.method === 'prompts/get' && request.invalidArguments && code === -32603)
    return {
      rule: 'PROMPTS-ERR-ARGS',
      code,
      message: `arguments the prompt's recorded arguments list does not allow drew -32603 Internal error${said}; missing or invalid arguments get -32602`,
    };
  return undefined;
}

/** What a replay saw of the live server in a finding's session. */
export interface LiveEvidence {
  /** The live session, its ids mapped back to the recorded ones (replay --update's rebuild). */
  session: RecordedSession;
  /** The replay could not go on: the server exited (crash), or a request went unanswered. */
  error?: { code: string; message: string; seq?: number };
  /** stdio: the lines the server wrote to stderr. */
  stderr: readonly string[];
  /** stdio: the stdout lines that were not JSON. */
  noise: readonly string[];
  /** `rule` findings: the rule IDs the validator found in the live session's server messages, at
   * the request's answer or after it. */
  rules?: readonly string[];
}

export interface Reproduction {
  reproduced: boolean;
  /** One line: what the live server did. */
  how: string;
}

/** Whether the live session shows the finding again. `request`: the finding's request as the
 * cassette holds it (the live session keeps its id). */
export function reproduces(finding: CassetteFinding, request: Record<string, unknown>, live: LiveEvidence): Reproduction {
  const answer = 'id' in request ? answerWithId(live.session, request.id) : undefined;
  switch (finding.kind) {
    case 'crash': {
      const exited = live.error?.code === 'MCPC_REPLAY_SERVER_EXITED' || live.error?.code === 'MCPC_REPLAY_HTTP_FAILED';
      return exited ? { reproduced: true, how: live.error!.message } : { reproduced: false, how: answered(answer) };
    }
    case 'hang': {
      const hung = live.error?.code === 'MCPC_REPLAY_TIMEOUT' && answer === undefined;
      return hung ? { reproduced: true, how: live.error!.message } : { reproduced: false, how: answered(answer) };
    }
    case 'stderr-panic': {
      const line = panicLine(live.stderr);
      return line ? { reproduced: true, how: `the server wrote to stderr: ${line}` } : { reproduced: false, how: 'no panic on stderr' };
    }
    case 'stdout-noise':
      return live.noise.length
        ? { reproduced: true, how: `the server wrote ${live.noise.length} non-JSON line(s) to stdout: ${live.noise[0]!.slice(0, 120)}` }
        : { reproduced: false, how: 'stdout carried only MCP messages' };
    case 'error-misuse': {
      const facts = { method: String(request.method), ...(finding.invalidArguments ? { invalidArguments: true } : {}) };
      const misuse = misusedError(facts, answer);
      return misuse ? { reproduced: true, how: misuse.message } : { reproduced: false, how: answered(answer) };
    }
    case 'rule': {
      const seen = (live.rules ?? []).includes(finding.rule ?? '');
      return seen
        ? { reproduced: true, how: `the validator finds ${finding.rule} in the live answers` }
        : { reproduced: false, how: `the validator finds no ${finding.rule} in the live answers` };
    }
  }
}

/** The answer with this id in a session, the last one when several came. */
export function answerWithId(session: RecordedSession, id: unknown): Record<string, unknown> | undefined {
  const key = JSON.stringify(id);
  let found: Record<string, unknown> | undefined;
  for (const m of session.messages) {
    if (m.direction !== 'server-to-client' || !isObject(m.json) || 'method' in m.json) continue;
    if (JSON.stringify(m.json.id) === key && ('result' in m.json || 'error' in m.json)) found = m.json;
  }
  return found;
}

function answered(answer: Record<string, unknown> | undefined): string {
  if (!answer) return 'the request was not answered, but the server went on';
  if (isObject(answer.error)) return `answered JSON-RPC error ${String(answer.error.code)}`;
  const r = answer.result;
  return isObject(r) && r.isError === true ? 'answered an isError result' : 'answered a result';
}
