/**
 * What every command's `--help` ends with: examples, its exit codes and the page of the docs that
 * explains it. A command module may carry its own `help`; this table holds it for the commands
 * that do not, so a command file does not have to change for its help to be complete.
 * `test/lib/cli-help.test.ts` checks that every listed command has all three. yargs lays out the
 * usage and options; this module lays out the rest (cli-commands.ts's runCli puts them together),
 * to the terminal's width, each example whole on a line of its own.
 */
import { join } from 'node:path';
import { packageRoot } from './paths.js';

export interface CommandHelp {
  /** `[command line, what it does]`; `$0` is the program's name. */
  examples: readonly (readonly [string, string])[];
  /** `[code, when]`, in the order a reader looks for them. */
  exitCodes: readonly (readonly [string, string])[];
  /** The page under docs/ (shipped in the package) that explains the command. */
  docs: string;
}

const USAGE: readonly [string, string] = ['2', 'usage error, or a file that cannot be read or written'];
const BUG: readonly [string, string] = ['70', 'internal error (a bug in mcp-cassette: please report it)'];

export const COMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  record: {
    examples: [
      [
        '$0 record --cassette weather.cassette.json -- node weather-server.js',
        'record a stdio server (a host runs this in place of the server)',
      ],
      ['$0 record --fail-on error -c ci.cassette.json -- npx my-server', 'exit 1 when the server broke a MUST of the spec'],
      [
        '$0 record --upstream https://mcp.example.com/mcp -c remote.cassette.json',
        'record Streamable HTTP; the proxy URL is printed on stdout',
      ],
    ],
    exitCodes: [
      ["the server's", 'stdio: the server exited (a server killed by a signal ends the proxy with that signal)'],
      ['0', '--upstream: stopped with Ctrl-C or SIGTERM, cassette written'],
      ['1', "--fail-on tripped (in place of the server's 0)"],
      ['73', 'the session could not be written to the cassette; it stays in its journal (run `recover`)'],
      ['126 / 127', 'the server command could not be executed / was not found'],
      USAGE,
      BUG,
    ],
    docs: 'recording.md',
  },
  check: {
    examples: [
      [
        "$0 check --cassettes 'cassettes/*.cassette.json' -- node dist/server.js",
        'replay every cassette against this build and judge its traffic',
      ],
      [
        "$0 check --cassettes 'cassettes/*.json' --junit junit.xml --sarif mcp.sarif --url http://127.0.0.1:3000/mcp",
        'an HTTP build, with reports',
      ],
      [
        "$0 check --cassettes 'cassettes/*.json' --baseline-build 'node base/server.js' -- node dist/server.js",
        'record the base build afresh, replay against this one',
      ],
      [
        "$0 check --cassettes 'cassettes/*.json' --shard 2/3 --json part-2/results.json -- node dist/server.js",
        'part 2 of 3 of a CI matrix; merge the parts with merge-reports',
      ],
    ],
    exitCodes: [
      ['0', 'nothing breaking and no violation at --fail-on (default error)'],
      [
        '1',
        'a breaking change or a changed output, a new violation, failed probe or fuzz finding at --fail-on, or a stale expected-failures entry',
      ],
      ['2', 'it could not run: usage (a bad --shard K/N), no cassette matched, a build that does not start'],
      BUG,
    ],
    docs: 'ci.md',
  },
  recover: {
    examples: [['$0 recover weather.cassette.json', 'fold the journals a killed recorder left into the cassette']],
    exitCodes: [['0', 'every journal folded (or none to fold)'], ['1', 'a journal could not be read'], USAGE, BUG],
    docs: 'recording.md',
  },
  show: {
    examples: [
      ['$0 show weather.cassette.json', 'sessions, peers, protocol revision, messages and violations'],
      ['$0 show weather.cassette.json --messages | less', 'every message, one line each'],
      ['$0 show weather.cassette.json --json', 'the summary for scripts'],
    ],
    exitCodes: [['0', 'the cassette was read'], USAGE, BUG],
    docs: 'cassette-format.md',
  },
  wrap: {
    examples: [
      ['$0 wrap ~/.config/Claude/claude_desktop_config.json', 'run every stdio server of that host through `record`'],
      ['$0 wrap .vscode/mcp.json --server weather', 'only the entry named weather'],
      ['$0 wrap .vscode/mcp.json --http', 'HTTP (url) entries too: wrap prints the `record --upstream` command to start for each'],
    ],
    exitCodes: [['0', 'the config was rewritten'], USAGE, BUG],
    docs: 'wrap.md',
  },
  unwrap: {
    examples: [['$0 unwrap ~/.config/Claude/claude_desktop_config.json', 'put back every entry `wrap` changed']],
    exitCodes: [['0', 'the config was restored'], USAGE, BUG],
    docs: 'wrap.md',
  },
  validate: {
    examples: [
      ['$0 validate weather.cassette.json', 'every violation, by session and message'],
      ['$0 validate cassettes/*.cassette.json --fail-on error', 'a CI gate: exit 1 on any error-level violation'],
      ['$0 validate w.cassette.json --format sarif -o w.sarif', 'SARIF for code scanning (also json, junit, github)'],
    ],
    exitCodes: [
      ['0', 'validated (violations are reported, not failed, without --fail-on)'],
      ['1', '--fail-on found a violation at that level'],
      USAGE,
      BUG,
    ],
    docs: 'validation.md',
  },
  probe: {
    examples: [
      ['$0 probe weather.cassette.json -- node weather-server.js', 'send the crafted requests a passive proxy never sees'],
      ['$0 probe remote.cassette.json --url http://127.0.0.1:8080/mcp', 'probe a Streamable HTTP server'],
    ],
    exitCodes: [
      ['0', 'probed'],
      ['1', '--fail-on found a new failure (or a stale baseline entry)'],
      ['2', 'usage error, unreadable cassette or baseline, or a server that never answered'],
      BUG,
    ],
    docs: 'probes.md',
  },
  replay: {
    examples: [
      ['$0 replay weather.cassette.json -- node weather-server.js', 'play the recording against this build, report what changed'],
      [
        '$0 replay remote.cassette.json --url http://127.0.0.1:8080/mcp --report markdown=replay.md',
        'against a Streamable HTTP server, with a report file',
      ],
      ['$0 replay weather.cassette.json --update -- node weather-server.js', 'accept a deliberate change: re-record the answers'],
      [
        '$0 replay --calibrate --reset "cp -r fixtures/. data/" notes.cassette.json -- node notes-server.js',
        'learn the tokens that vary between runs of this build, from the same data each run',
      ],
    ],
    exitCodes: [
      ['0', 'no breaking change and no changed output (warnings allowed unless --strict)'],
      ['1', 'a breaking change or a changed output (with --content warn, only breaking; with --strict, a warning too)'],
      [
        '2',
        'the replay could not run: invalid cassette, no target, server would not start, crashed or hung; --calibrate refused another server or version; --reset failed',
      ],
      BUG,
    ],
    docs: 'replay.md',
  },
  serve: {
    examples: [
      ['$0 serve weather.cassette.json', 'a mock MCP server on stdio, answering from the cassette'],
      ['$0 serve weather.cassette.json --listen 127.0.0.1:0', 'the same over Streamable HTTP; the URL is printed on stdout'],
      ['$0 serve weather.cassette.json --mode new_episodes -- node weather-server.js', 'answer what was recorded, record what was not'],
    ],
    exitCodes: [
      ['0', 'every request was answered from the cassette (or the real server, in record modes)'],
      ['1', 'a request had no recorded answer (or --fail-on-unused and a recording went unused)'],
      USAGE,
      BUG,
    ],
    docs: 'serve.md',
  },
  rules: {
    examples: [
      ['$0 rules', 'every rule: ID, severity, revisions, spec link'],
      ['$0 rules --format json', 'the same for scripts'],
      ['$0 rules --format markdown > docs/rules.md', 'the rules page of these docs'],
    ],
    exitCodes: [['0', 'listed'], USAGE, BUG],
    docs: 'rules.md',
  },
  export: {
    examples: [
      [
        '$0 export weather.cassette.json --format har --output weather.har',
        'an HTTP recording as HAR 1.2, for browser DevTools and HAR viewers',
      ],
      ['$0 export cassettes/ --format har > all.har', 'every cassette of a directory, one HAR'],
      [
        '$0 export weather.cassette.json --format otlp-json --output traces.jsonl',
        'OpenTelemetry traces for the Collector otlpjsonfile receiver',
      ],
      [
        '$0 export cassettes/ --format otlp-json --include-payloads',
        'every cassette of a directory, tool arguments and results on the spans',
      ],
    ],
    exitCodes: [
      ['0', 'written'],
      ['2', 'usage error (no or unknown --format), or a cassette or --output that cannot be read or written'],
      BUG,
    ],
    docs: 'telemetry.md',
  },
  import: {
    examples: [
      ['$0 import --from har devtools.har --output remote.cassette.json', 'Streamable HTTP traffic saved from the browser, as a cassette'],
      ['$0 import --from har weather.har > weather.cassette.json', 'the cassette on stdout'],
    ],
    exitCodes: [
      ['0', 'imported (the count of skipped non-MCP entries is on stderr)'],
      ['2', 'not JSON, not HAR, no MCP exchange, or an MCP body cut short or left out (MCPC_HAR_*); usage error; unreadable file'],
      BUG,
    ],
    docs: 'har.md',
  },
};

/** The absolute path of a docs page in the installed package (docs/ ships with it). */
export function docsPage(page: string): string {
  return join(packageRoot, 'docs', page);
}

/** The examples and closing line of `mcp-cassette --help` (no command). */
export const ROOT_HELP: { examples: CommandHelp['examples']; epilogue: string } = {
  examples: [
    ['$0 record -c weather.cassette.json -- node weather-server.js', 'record a stdio server, validating live'],
    ['$0 replay weather.cassette.json -- node weather-server.js', 'replay it against a new build'],
  ],
  epilogue: "Each command's --help has its examples and exit codes.",
};

/** The width help is laid out in: the terminal's when stdout is one, else 80 (a pipe, a file). */
export function helpWidth(stdout: { isTTY?: boolean; columns?: number } = process.stdout): number {
  return stdout.isTTY && stdout.columns ? stdout.columns : 80;
}

/**
 * `text` as lines of at most `width` columns, the first starting with `first`, the next ones with
 * `indent`. Words are never broken: one longer than a line (a path, a URL) has a line to itself
 * and overflows it whole, so that it can still be copied.
 */
function wrapWords(text: string, width: number, first: string, indent = first): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}

const PROGRAM = 'mcp-cassette';

function exampleLines(examples: CommandHelp['examples'], width: number): string[] {
  // Each command line whole on a line of its own, however long: a reader copies it, and a break
  // inside it (the terminal's or ours) would paste as two commands.
  return ['Examples:', ...examples.flatMap(([line, what]) => [`  ${line.replace(/\$0/g, PROGRAM)}`, ...wrapWords(what, width, '      ')])];
}

/** The text after a command's options: examples, exit codes and where to read more, laid out for
 * `width` columns. */
export function helpEpilogue(help: CommandHelp, width = 80): string {
  const codeWidth = Math.max(...help.exitCodes.map(([code]) => code.length));
  return [
    ...exampleLines(help.examples, width),
    '',
    'Exit codes:',
    ...help.exitCodes.flatMap(([code, when]) => wrapWords(when, width, `  ${code.padEnd(codeWidth)}  `, ' '.repeat(codeWidth + 4))),
    '',
    `Docs: ${docsPage(help.docs)}`,
  ].join('\n');
}

/** The same for `mcp-cassette --help`. */
export function rootEpilogue(width = 80): string {
  return [...exampleLines(ROOT_HELP.examples, width), '', ...wrapWords(ROOT_HELP.epilogue, width, ''), `Docs: ${docsPage('')}`].join('\n');
}
