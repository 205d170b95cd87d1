import type { OptionSpec, ParsedOptions } from '../../lib/fast-args.js';
import type { ServeArgs } from './run-serve.js';

/** The options of `mcp-cassette serve`. One table serves the fast parser (cli.ts) and yargs. */
export const SERVE_OPTIONS: Record<string, OptionSpec> = {
  listen: {
    type: 'string',
    describe: 'Serve Streamable HTTP on host:port (host defaults to 127.0.0.1; port 0 picks a free one); prints the URL on stdout',
  },
  match: {
    type: 'string',
    default: 'params',
    describe:
      'params (normalised params, repeats in recorded order), strict (exact params, each answer once) or order (recorded order enforced)',
  },
  timing: {
    type: 'string',
    default: 'fast',
    describe: 'fast (no delays), recorded (the recorded gaps) or xN (the recorded gaps, N times faster)',
  },
  ignore: { type: 'array', describe: 'Ignore this params path when matching (/arguments/seed, timestamp); repeatable' },
  mode: {
    type: 'string',
    describe:
      'Record mode: once, new_episodes, none, all, passthrough (default: MCP_CASSETTE_MODE, else once with a real server, none without)',
  },
  upstream: {
    type: 'string',
    describe: 'The real server is this Streamable HTTP endpoint (instead of a command after --), for the record modes',
  },
  header: { type: 'array', describe: 'With --upstream: send this "Name: value" header with every request to it (credentials); repeatable' },
  run: {
    type: 'string',
    describe:
      'Recording runs: serve processes given the same id record into one run (default: MCP_CASSETTE_RUN, else processes that follow one another within 1.5 s)',
  },
  report: { type: 'string', describe: 'Write a JSON summary to this file ({pid} is replaced by the process id)' },
  'fail-on-unused': { type: 'boolean', default: false, describe: 'Exit 1 when recorded requests were never asked for' },
  'answer-timeout': {
    type: 'number',
    describe: 'How long to wait for the client to answer a server→client request, in ms (default 30000)',
  },
  'allow-host': { type: 'array', describe: 'HTTP: another Host the listener accepts; repeatable' },
  'allow-origin': { type: 'array', describe: 'HTTP: another Origin the listener accepts; repeatable' },
  'log-file': { type: 'string', describe: 'Write logs there instead of stderr' },
  'log-level': { type: 'string', default: 'info', describe: 'fatal, error, warn, info, debug, trace or silent' },
  'log-format': { type: 'string', describe: 'json or pretty (readable lines); default: pretty on a terminal, json otherwise' },
};

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)]);

/** Parsed options (fast parser or yargs) → the handler's arguments. */
export function serveArgsFrom(cassettes: string | readonly string[], o: ParsedOptions): ServeArgs {
  const all = typeof cassettes === 'string' ? [cassettes] : [...cassettes];
  return {
    cassette: all[0]!,
    ...(all.length > 1 ? { cassettes: all } : {}),
    command: o['--'].map(String),
    ...(o.upstream !== undefined ? { upstream: String(o.upstream) } : {}),
    header: strings(o.header),
    ...(o.listen !== undefined ? { listen: String(o.listen) } : {}),
    match: String(o.match ?? 'params'),
    timing: String(o.timing ?? 'fast'),
    ignore: strings(o.ignore),
    ...(o.mode !== undefined ? { mode: String(o.mode) } : {}),
    ...(o.run !== undefined ? { run: String(o.run) } : {}),
    ...(o.report !== undefined ? { report: String(o.report) } : {}),
    failOnUnused: Boolean(o['fail-on-unused']),
    ...(o['answer-timeout'] !== undefined ? { answerTimeout: Number(o['answer-timeout']) } : {}),
    allowHost: strings(o['allow-host']),
    allowOrigin: strings(o['allow-origin']),
    ...(o['log-file'] !== undefined ? { logFile: String(o['log-file']) } : {}),
    logLevel: String(o['log-level'] ?? 'info'),
    ...(o['log-format'] !== undefined ? { logFormat: String(o['log-format']) } : {}),
  };
}
