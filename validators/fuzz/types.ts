/**
 * The fuzzer's model: a case is a few client messages derived from a recorded request by one
 * mutation; the generators (mutate-*.ts) turn a cassette's plan and a seeded random source into
 * cases; the engine (engine.ts) sends them, judges what came back, and keeps each distinct
 * finding as a minimal session.
 */
import type { Json } from '../probes/plan.js';
export type { FindingKind } from '../../lib/cassette/cassette.js';

export type { Json };

/** Which kind of mutation made the case: a tool's arguments (from its recorded `inputSchema`),
 * the JSON-RPC and MCP envelope (ids, `_meta`, versions), or the order of messages. */
export type CaseFamily = 'arguments' | 'protocol' | 'sequence';

export interface FuzzStep {
  /** The message as an object: what the report shows and what the validator reads. */
  message: Json;
  /** The exact text to write when `JSON.stringify(message)` cannot say it (a number past 2^53,
   * a duplicate key). One line, no newline. */
  raw?: string;
  /** `answer` (default for a request): wait for the answer with this id before the next step;
   * `none`: go on at once (a notification, or a call to be cancelled mid-way). */
  wait?: 'answer' | 'none';
}

export interface FuzzCase {
  /** Stable and unique within a run: `<family>/<mutation>/<subject>`, e.g.
   * `arguments/wrong-type/echo.text`. The same seed gives the same ids in the same order. */
  id: string;
  family: CaseFamily;
  /** The mutation's name alone (`wrong-type`, `huge-string`, `id-past-2^53`...), for the report. */
  mutation: string;
  /** One line for the report: what was changed, from which recorded request. */
  change: string;
  /** The connection the case needs: a 2026-07-28 one (no handshake) or a 2025 one (the recorded
   * `initialize` first). */
  era: 'modern' | 'legacy';
  /** The steps need a connection on which no handshake was made (a call before `initialize`). */
  beforeHandshake?: boolean;
  /** The request ids in the steps are the mutation (an id past 2^53, a null id, one id sent
   * twice): send them as they are, never renumbered. */
  fixedIds?: boolean;
  steps: FuzzStep[];
  /** For `tools/call` cases: the tool, so the side-effect gate and the report can name it. */
  tool?: string;
  /** The arguments break the tool's `inputSchema` (wrong type, missing required, enum outsider,
   * out of range...): what the spec wants then depends on the revision (tools.mdx §Error
   * Handling), and -32603 is never it. */
  invalidArguments?: boolean;
}
