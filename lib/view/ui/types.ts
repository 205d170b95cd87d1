/** The JSON the server sends, as the page reads it: the server's own types (type-only imports,
 * erased by the bundler), and the replay report's shape (replay/replay-report.schema.json). */
export type { HttpExchange } from '../../cassette/cassette.js';
export type { ChildView, NodeView } from '../json-node.js';
export type { MessageRow, SessionDetail, SessionView, ViolationView } from '../view-model.js';
export type { Overview } from '../view-source.js';

export interface Difference {
  verdict: string;
  kind: string;
  path: string;
  message: string;
  recorded?: unknown;
  live?: unknown;
}

export interface Interaction {
  seq: number;
  exchange?: number;
  method: string;
  name?: string;
  outcome: string;
  differences: Difference[];
  note?: string;
  durationMs?: number;
}

export interface ReplaySession {
  index: number;
  id: string;
  label?: string;
  transport: string;
  revision?: string;
  outcome: string;
  interactions: Interaction[];
  note?: string;
  error?: { code: string; message: string };
}

export interface ReplayReport {
  cassette: string;
  target: { command?: string[]; url?: string };
  startedAt: string;
  durationMs: number;
  outcome: string;
  error?: { code: string; message: string };
  summary: Record<string, unknown> & {
    interactions: number;
    same: number;
    breaking: number;
    changed?: number;
    warning: number;
    compatible: number;
  };
  sessions: ReplaySession[];
}
