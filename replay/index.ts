/**
 * The replay library API, for test code (package.json "exports" maps `mcp-cassette/replay`, and
 * the package root, here):
 *   import { replayCassette } from 'mcp-cassette/replay';
 */
export { replayCassette, exitCodeFor, DEFAULT_TIMEOUT_MS, type ReplayOptions } from './replay.js';
export { renderConsole, renderReport, REPORT_FORMATS, type ReportFormat } from './reports.js';
export { loadReplayConfig, REPLAY_CONFIG_SCHEMA, CONFIG_FILE, type ReplayConfig } from './config.js';
export { DEFAULT_CALIBRATION_RUNS } from './calibrate.js';
export { renderCalibration } from './calibrate-render.js';
export type { IgnoreRule } from './normalise.js';
export type {
  CalibrationResult,
  Difference,
  InteractionOutcome,
  InteractionResult,
  ReplayErrorCode,
  ReplayResult,
  ReplayRunError,
  ReplaySummary,
  SessionResult,
  UpdateResult,
  Verdict,
} from './types.js';
