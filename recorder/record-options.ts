import type { OptionSpec } from '../lib/fast-args.js';
import { CAPTURE_OPTIONS } from './capture/capture-option-table.js';
import { DIR_OPTIONS } from './rotation/dir-option-table.js';

/** The options of `mcp-cassette record` (stdio). One table serves the fast parser and yargs. */
export const RECORD_OPTIONS: Record<string, OptionSpec> = {
  cassette: { type: 'string', alias: 'c', describe: 'Cassette file to record into (default: ./<server name>.cassette.json)' },
  overwrite: { type: 'boolean', describe: 'Replace the sessions already in the cassette instead of appending one', default: false },
  label: { type: 'string', describe: 'A name for this session, stored in the cassette' },
  'shutdown-grace': {
    type: 'number',
    describe: 'Milliseconds the server gets to exit after the host closes stdin, before SIGTERM (and again before SIGKILL)',
    default: 2000,
  },
  'redact-arg': {
    type: 'array',
    describe: 'Regular expression for server arguments to mask in the cassette (first capture group, or the whole argument)',
  },
  upstream: {
    type: 'string',
    describe: 'Streamable HTTP mode: the upstream MCP endpoint URL to put the proxy in front of (no `--` command then)',
  },
  listen: { type: 'string', describe: 'HTTP mode: host:port to listen on (default 127.0.0.1:0, a free port; the URL is printed)' },
  'redact-header': {
    type: 'array',
    describe: 'HTTP mode: a header whose value is forwarded but never written to disk (Authorization and cookies always are); repeatable',
  },
  'max-body-size': { type: 'number', describe: 'HTTP mode: request bodies over this many bytes get 413', default: 16 * 1024 * 1024 },
  'allow-host': { type: 'array', describe: 'HTTP mode: extra Host names the listener accepts (loopback names always are)' },
  'allow-origin': { type: 'array', describe: 'HTTP mode: extra Origins the listener accepts (loopback origins always are)' },
  validate: {
    type: 'boolean',
    describe: 'Validate every message live against the MCP spec and alert on violations (--no-validate turns it off)',
    default: true,
  },
  'validate-workers': {
    type: 'number',
    describe:
      'Live validation worker threads (default 1): HTTP sessions are spread over them, each judged by one, with the same verdicts for any number; a stdio session uses one',
    default: 1,
  },
  'fail-on': {
    type: 'string',
    describe: 'Exit 1 (when the server itself exited 0) if violations at this level (error or warning) were seen',
  },
  'alert-webhook': { type: 'string', describe: 'POST each new violation as JSON (Slack-compatible `text` field) to this URL' },
  'alert-exec': { type: 'string', describe: 'Pipe each new violation as one JSON line into this shell command' },
  'log-file': { type: 'string', describe: 'Write mcp-cassette logs to this file instead of stderr' },
  'log-level': { type: 'string', describe: 'pino log level: fatal, error, warn, info, debug, trace, silent', default: 'info' },
  ...CAPTURE_OPTIONS,
  ...DIR_OPTIONS,
  'log-format': {
    type: 'string',
    describe: 'json (one pino record a line) or pretty (readable lines); default: pretty on a terminal, json otherwise',
  },
};
