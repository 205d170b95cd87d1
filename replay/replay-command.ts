import type { CommandModule } from '../lib/command.js';
import { checkReportPaths } from '../lib/cli-output.js';

/**
 * `mcp-cassette replay`: what the command line knows of it (options, help). The work is in replay-run.ts, loaded when the command runs, so that `--help` loads nothing of the replay.
 */
export const REPLAY_COMMAND: CommandModule = {
  name: 'replay',
  describe:
    'Play the client side of a cassette against a live server and report what changed: replay <cassette> -- <server command> [args...], or replay <cassette> --url <endpoint>',
  usage: '$0 replay <cassette> [options] -- <server command> [args...]\n$0 replay <cassette> --url <endpoint> [options]',
  positionals: [{ name: 'cassette', variadic: true }],
  options: {
    url: { type: 'string', describe: 'Streamable HTTP endpoint to replay against (instead of a server command)' },
    timeout: {
      type: 'number',
      describe: "Per-request timeout in ms (default: 10000, or 5 times the request's recorded latency when that is longer)",
    },
    ignore: {
      type: 'string',
      array: true,
      default: [],
      describe:
        'Also ignore this JSON Pointer or glob (/result/content/*/text, **/etag, timestamp), for every interaction, or scoped: "<method> [<name>] <pointer>" ("tools/call get_env /result/content/*/text"); repeatable',
    },
    calibrate: {
      type: 'string',
      describe:
        "Replay N times (default 2) against the build that recorded the cassette and store, per request, the tokens whose values differ (as templates) in it; later replays skip only those tokens: --calibrate [N]. Refuses (exit 2) when the server's name or version differs from the recording's",
    },
    reset: {
      type: 'string',
      describe:
        'Shell command run before the replay and before each --calibrate run, to put a stateful server\'s data back where the recording started (e.g. "cp -r fixtures/. data/")',
    },
    force: {
      type: 'boolean',
      default: false,
      describe: "With --calibrate: learn even from a server whose name or version differs from the recording's",
    },
    content: {
      type: 'string',
      describe: 'What a changed output (output-changed: text or values changed, the contract intact) does: fail (default, exit 1) or warn',
    },
    report: {
      type: 'string',
      array: true,
      default: [],
      describe: 'Also write json=FILE, junit=FILE, markdown=FILE, or github (workflow annotations on stdout); repeatable',
    },
    strict: { type: 'boolean', default: false, describe: 'Exit 1 on warnings too' },
    config: { type: 'string', describe: 'Config file (default: ./mcp-cassette.config.json when it exists)' },
    header: {
      type: 'string',
      array: true,
      default: [],
      describe: 'HTTP: send this "Name: value" header with every request (e.g. a real token for a redacted one); repeatable',
    },
    quiet: { type: 'boolean', default: false, describe: 'No console report (reports from --report are still written)' },
    update: {
      type: 'boolean',
      default: false,
      describe: 'Re-record the sessions that changed from the live server (keeps redactions and the other sessions); exit 0 once written',
    },
    'redact-header': {
      type: 'string',
      array: true,
      default: [],
      describe: 'With --update over HTTP: also mask this response header in the cassette; repeatable',
    },
    progress: {
      type: 'boolean',
      default: true,
      describe: 'Progress bar on stderr for long cassettes (only on a terminal, never in CI); --no-progress turns it off',
    },
  },
  handler: async (args, context) => {
    // A report that cannot be written is said before the replay runs, not after it.
    checkReportPaths(
      ((args.report as unknown[] | undefined) ?? []).map(String).map((spec) => {
        const eq = spec.indexOf('=');
        return [`--report ${spec.slice(0, eq)}`, eq === -1 ? undefined : spec.slice(eq + 1)] as const;
      }),
    );
    return (await import('./replay-run.js')).REPLAY_HANDLER(args, context);
  },
};
