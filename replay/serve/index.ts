/**
 * The public API of `mcp-cassette serve` and the test-runner helper. Named exports only.
 */
export { withCassette, cassettePath } from './with-cassette.js';
export type { WithCassetteOptions, CassetteRun, RealHttpServer } from './with-cassette.js';
export { ServeEngine } from './engine.js';
export type { ServeOptions } from './engine.js';
export { LiveSession } from './live-session.js';
export type { Outlet, Fallback } from './live-session.js';
export { NO_MATCH_CODE } from './request-choice.js';
export { formatSummary } from './serve-summary.js';
export type { ServeSummary, UnmatchedReport, AnswerMismatch } from './serve-summary.js';
export { parseTiming } from './timing.js';
export type { Timing } from './timing.js';
export { serveStdio } from './stdio.js';
export { serveHttp } from './http.js';
export type { HttpServeOptions, HttpServer } from './http.js';
export { RECORD_MODES, MODE_ENV, effectiveMode, decide, ServeError } from './modes.js';
export type { RecordMode, Action, ServeErrorCode } from './modes.js';
export { RUN_ENV, RUN_GAP_MS } from './runs.js';
export { StdioFallback } from './fallback.js';
export { HttpFallback } from './http-fallback.js';
export type { FallbackOptions } from './fallback.js';
export type { HttpFallbackOptions } from './http-fallback.js';
export { MATCH_MODES } from './matcher.js';
export type { MatchMode } from './matcher.js';
export { serveCommand } from './run-serve.js';
export type { ServeArgs, ServeReport } from './run-serve.js';
