/**
 * The replay library API, for test code:
 *   import { replayCassette } from 'mcp-cassette/dist/replay/index.js';
 */
export { replayCassette, exitCodeFor, DEFAULT_TIMEOUT_MS, type ReplayOptions } from './replay.js';
export { renderConsole, renderReport, REPORT_FORMATS, type ReportFormat } from './reports.js';
export { loadReplayConfig, REPLAY_CONFIG_SCHEMA, CONFIG_FILE, type ReplayConfig } from './config.js';
export type {
  Difference,
  InteractionOutcome,
  InteractionResult,
  ReplayErrorCode,
  ReplayResult,
  ReplayRunError,
  ReplaySummary,
  SessionResult,
  Verdict,
} from './types.js';
