import type { OptionSpec } from '../../lib/fast-args.js';

/** The production-capture options of `record` (sampling, capture level, redaction, metrics),
 * merged into RECORD_OPTIONS.
 * Data only (their checks are in capture-options.ts): the bin reads the table before it spawns. */
export const CAPTURE_OPTIONS: Record<string, OptionSpec> = {
  sample: {
    type: 'number',
    describe: 'Record this fraction (0 to 1) of sessions (on stateless HTTP, of exchanges); the rest are validated live but not kept',
  },
  'keep-violations': {
    type: 'string',
    describe: 'With --sample: always keep a session with a violation at this level or above (error, warning, info; none to never)',
    default: 'error',
  },
  capture: {
    type: 'string',
    describe:
      "What the cassette keeps of each message: full, metadata (no params/result values) or hashed (each value as its keyed hash, HMAC-SHA-256 under the folder's key or MCP_CASSETTE_HASH_KEY, and size)",
    default: 'full',
  },
  'redact-path': {
    type: 'array',
    describe: 'JSON Pointer into every message whose value is masked before it reaches disk (* for any member or index); repeatable',
  },
  'redact-value': {
    type: 'array',
    describe: 'Regular expression masked in every string of every message (first capture group, or the whole match); repeatable',
  },
  'redact-secrets': {
    type: 'boolean',
    describe: 'Mask bearer tokens, JWTs, AWS keys, private key blocks and sk- style keys everywhere (--no-redact-secrets keeps them)',
    default: true,
  },
  otel: {
    type: 'boolean',
    describe:
      'Send OpenTelemetry spans and duration metrics (MCP semantic conventions) over OTLP, set by the OTEL_EXPORTER_OTLP_* variables',
    default: false,
  },
  'include-payloads': {
    type: 'boolean',
    describe: 'With --otel: put tool arguments and results on the spans (gen_ai.tool.call.arguments/.result), redacted as the cassette is',
    default: false,
  },
  'metrics-listen': {
    type: 'string',
    describe: 'Serve Prometheus metrics at /metrics and a health check at /healthz on host:port (a bare port binds 127.0.0.1)',
  },
  ui: {
    type: 'string',
    describe:
      'Serve a browser view of the traffic as it flows on host:port (a bare port binds 127.0.0.1; 0 picks one); its URL, with a token, goes to stderr',
  },
};
