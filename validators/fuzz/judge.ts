/**
 * What one case drew, judged: the server crashed or hung, wrote a panic to stderr or noise to
 * stdout, broke a rule of the catalogue in what it sent back (the validator, fed frame by frame as
 * the live validator is), or answered a JSON-RPC error where the spec wants a result
 * (lib/fuzz-finding.ts). Only the server's messages count: the fuzzer's own requests break rules
 * on purpose.
 */
import type { FindingKind } from '../../lib/cassette/cassette.js';
import { misusedError, panicLine } from '../../lib/fuzz-finding.js';
import type { RecordedMessage } from '../../lib/message.js';
import { isObject } from '../../lib/plain-object.js';
import type { Violation } from '../../lib/violation.js';
import { SessionValidator } from '../engine.js';
import { RULES } from '../rules/index.js';
import type { FuzzCase } from './types.js';
import type { StepResult, Wire } from './wire.js';

export interface Observed {
  kind: FindingKind;
  rule?: string;
  severity: 'error' | 'warning';
  /** Two observations with the same signature are one finding. */
  signature: string;
  message: string;
  /** The seq of the case's first request on its connection. */
  seq: number;
  method: string;
  tool?: string;
}

/** Rules the fuzzer reports under a kind of its own (stdout noise is `stdout-noise`). */
const OWN_KIND = new Set(['STDIO-STDOUT-CLEAN']);
/** Rules a server breaks only because of what the fuzzer sent: an answer whose id the fuzzer
 * reused or garbled on purpose (a case's `fixedIds`, or raw text: every other request carries a
 * `fuzz-<n>` id of its own), which may arrive while a later case runs; and a tool that hands back
 * the invisible or bidirectional characters the fuzzer put in its arguments reflects them, it
 * injects nothing. */
const CAUSED_BY_IDS = new Set(['ENV-RES-ID-MATCH']);
const OWN_ID = /^fuzz-\d+$/;
const CAUSED_BY_ARGUMENTS = new Set(['SEC-RESULT-INJECTION']);
/** A tools/call the fuzzer malformed (its envelope or ids) is refused with a JSON-RPC error, as
 * it should be: whether the tool reports its failures as isError results is the arguments' cases'
 * question, not theirs. */
const CAUSED_BY_ENVELOPE = new Set(['TOOLS-ERR-EXECUTION']);

/** Feeds a connection's frames to a session validator as they come, and hands back what the
 * server's messages broke since the last call. */
export class WireValidator {
  readonly #validator: SessionValidator;
  #checked = 0;
  #exchanges = 0;

  constructor(readonly wire: Wire) {
    this.#validator = new SessionValidator(
      { id: 'fuzz', transport: wire.transport, exchanges: wire.exchanges },
      { rules: RULES, onRuleError: () => {} },
    );
  }

  /** The violations of the frames and exchanges that arrived since the last call. */
  take(): Violation[] {
    const out: Violation[] = [];
    const v = this.#validator;
    const { messages, exchanges } = this.wire;
    if (this.wire.transport === 'stdio') {
      for (; this.#checked < messages.length; this.#checked++) out.push(...v.check(messages[this.#checked]!));
      return out;
    }
    // HTTP: an exchange is taken whole once its POST is over (its envelope first, then its
    // frames, then its end), as the live validator takes it.
    for (; this.#exchanges < exchanges.length; this.#exchanges++) {
      const x = exchanges[this.#exchanges]!;
      if (x.endT === undefined) break;
      v.exchange(x);
      const frames = messages.filter((m) => m.http?.exchange === x.id);
      for (const m of frames) out.push(...v.check(m));
      if (frames[0]) out.push(...v.exchangeEnd(x, frames[0]));
      else out.push(...v.bareExchangeEnd(x));
    }
    return out;
  }
}

/** What a case left behind on its connection, for the judge. */
export interface CaseTrace {
  case: FuzzCase;
  results: StepResult[];
  /** The frames the case added to its connection. */
  frames: RecordedMessage[];
  /** stderr lines the case drew (stdio: from the frames; HTTP with a command: the process's). */
  stderr: string[];
  violations: Violation[];
  timeoutMs: number;
}

function firstRequest(c: FuzzCase): { method: string; tool?: string } {
  const step = c.steps.find((s) => typeof s.message.method === 'string' && 'id' in s.message) ?? c.steps[0]!;
  const method = String(step.message.method ?? '');
  return { method, ...(c.tool ? { tool: c.tool } : {}) };
}

/** Digits and hex runs stand in for addresses, pids and line numbers, so one panic is one finding. */
const normalise = (line: string): string =>
  line
    .replace(/0x[0-9a-f]+/gi, '0x…')
    .replace(/\d+/g, 'N')
    .slice(0, 120);

export function judgeCase(trace: CaseTrace): Observed[] {
  const c = trace.case;
  const { method, tool } = firstRequest(c);
  const where = `${method}${tool ? `|${tool}` : ''}`;
  const sent = trace.frames.filter((m) => m.direction === 'client-to-server' && m.channel !== 'stderr');
  const seq = (sent.find((m) => m.kind === 'request') ?? sent[0])?.seq ?? 0;
  const base = { seq, method, ...(tool ? { tool } : {}) };
  const out: Observed[] = [];
  const gone = trace.results.find((r) => r.gone)?.gone;
  if (gone) out.push({ ...base, kind: 'crash', severity: 'error', signature: `crash|${where}|${normalise(gone)}`, message: gone });
  else if (trace.results.some((r) => r.timedOut))
    out.push({
      ...base,
      kind: 'hang',
      severity: 'error',
      signature: `hang|${where}`,
      message: `no answer to ${method}${tool ? ` of \`${tool}\`` : ''} within ${trace.timeoutMs} ms (--timeout)`,
    });
  const panic = panicLine(trace.stderr);
  if (panic)
    out.push({
      ...base,
      kind: 'stderr-panic',
      severity: 'error',
      signature: `stderr-panic|${where}|${normalise(panic)}`,
      message: `the server wrote a panic to stderr: ${panic}`,
    });
  const noise = trace.frames.filter((m) => m.channel === 'stdout' && (m.kind === 'text' || m.kind === 'non-jsonrpc'));
  if (noise.length) {
    const first = noise[0]!.raw ?? JSON.stringify(noise[0]!.json) ?? '';
    out.push({
      ...base,
      kind: 'stdout-noise',
      severity: 'error',
      signature: `stdout-noise|${where}`,
      message: `the server wrote ${noise.length} line(s) to stdout that are no MCP message: ${first.slice(0, 120)}`,
    });
  }
  if (c.family === 'arguments') {
    c.steps.forEach((step, i) => {
      const m = String(step.message.method ?? '');
      const misuse = misusedError({ method: m, ...(c.invalidArguments ? { invalidArguments: true } : {}) }, trace.results[i]?.answer);
      if (misuse)
        out.push({
          ...base,
          kind: 'error-misuse',
          rule: misuse.rule,
          severity: 'warning',
          signature: `error-misuse|${misuse.rule}|${misuse.code}|${where}`,
          message: misuse.message,
        });
    });
  }
  // A rule reported as error-misuse above is not reported again as the validator saw it.
  const seen = new Set<string>(out.flatMap((o) => (o.rule ? [o.rule] : [])));
  const earlier = answersToEarlierCases(trace.frames);
  for (const v of trace.violations) {
    if (v.direction !== 'server-to-client' || v.severity === 'info' || OWN_KIND.has(v.rule) || seen.has(v.rule)) continue;
    if (earlier.has(v.seq)) continue;
    if (CAUSED_BY_IDS.has(v.rule) && !answersOwnId(trace.frames, v.seq)) continue;
    if (c.family === 'arguments' ? CAUSED_BY_ARGUMENTS.has(v.rule) : CAUSED_BY_ENVELOPE.has(v.rule)) continue;
    seen.add(v.rule);
    out.push({ ...base, kind: 'rule', rule: v.rule, severity: v.severity, signature: `rule|${v.rule}|${where}`, message: v.message });
  }
  return out;
}

/** Whether the message at `seq` answers one of the fuzzer's own `fuzz-<n>` ids. */
function answersOwnId(frames: readonly RecordedMessage[], seq: number): boolean {
  const id = jsonOf(frames.find((m) => m.seq === seq) ?? ({} as RecordedMessage))?.id;
  return typeof id === 'string' && OWN_ID.test(id);
}

/**
 * The seqs of the answers among a case's frames to requests the case did not send. On stdio a case
 * ends once its last request is answered, and an answer to an earlier case's request can come
 * later still (a call sent without waiting, a duplicate id answered twice, a slow tool overtaken
 * by a ping): what the validator says of that answer is about the earlier request, whose method and
 * tool this case does not have. An error with a null id answers a request whose id the server
 * could not read, this case's own.
 */
function answersToEarlierCases(frames: readonly RecordedMessage[]): Set<number> {
  const sent = new Set<string>();
  for (const m of frames) {
    const j = jsonOf(m);
    if (m.direction === 'client-to-server' && j && typeof j.method === 'string' && 'id' in j) sent.add(JSON.stringify(j.id));
  }
  const out = new Set<number>();
  for (const m of frames) {
    const j = jsonOf(m);
    if (m.direction !== 'server-to-client' || !j || 'method' in j || !('result' in j || 'error' in j)) continue;
    if (j.id !== null && j.id !== undefined && !sent.has(JSON.stringify(j.id))) out.add(m.seq);
  }
  return out;
}

/** The stderr lines among frames (stdio). */
export function stderrOf(frames: readonly RecordedMessage[]): string[] {
  const out: string[] = [];
  for (const m of frames) {
    if (m.channel !== 'stderr') continue;
    const text = m.raw ?? (m.json !== undefined ? JSON.stringify(m.json) : '');
    out.push(...text.split('\n'));
  }
  return out;
}

/** The JSON of a frame when it is an object. */
export const jsonOf = (m: RecordedMessage): Record<string, unknown> | undefined => (isObject(m.json) ? m.json : undefined);
