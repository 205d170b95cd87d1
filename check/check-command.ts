import type { CommandModule } from '../lib/command.js';
import { checkReportPaths } from '../lib/cli-output.js';

/**
 * `mcp-cassette check`: what the command line knows of it (options, help). The work is in check-run.ts, loaded when the command runs, so that `--help` loads neither replay nor validation.
 */
export const CHECK_COMMAND: CommandModule = {
  name: 'check',
  describe:
    "CI: replay every cassette against the build, validate the replays' traffic, optionally probe, and write one report: check --cassettes <glob>... -- <server command> [args...], or --url <endpoint>",
  usage:
    "$0 check --cassettes '<glob>'... [options] -- <server command> [args...]\n$0 check --cassettes '<glob>'... --url <endpoint> [options]\n$0 check [--cassettes '<glob>'... | --client <command>] --baseline-build <command> -- <PR server command> [args...]",
  options: {
    cassettes: { type: 'string', array: true, default: [], describe: 'Cassette files or globs (quoted) to replay; repeatable' },
    url: { type: 'string', describe: 'Streamable HTTP endpoint of the build (instead of a server command after --)' },
    'fail-on': {
      type: 'string',
      default: 'error',
      describe: 'Exit 1 on violations at this level (error or warning); breaking changes always fail',
    },
    'expected-failures': {
      type: 'string',
      describe: 'YAML baseline: validate: rule IDs or RULE-ID:/path, replay: change codes per tool, probe: probe IDs; stale entries fail',
    },
    probe: { type: 'boolean', default: false, describe: 'Also run the active probes against the build, once per cassette' },
    'allow-side-effects': { type: 'boolean', default: false, describe: 'With --probe: also re-send recorded requests that may act' },
    summary: {
      type: 'string',
      describe: 'Write the Markdown summary here (it is appended to $GITHUB_STEP_SUMMARY anyway when that is set)',
    },
    junit: { type: 'string', describe: 'Write a JUnit XML report here' },
    sarif: { type: 'string', describe: 'Write a SARIF 2.1.0 report here (for GitHub code scanning)' },
    json: { type: 'string', describe: 'Write the JSON report here: the whole run (what merge-reports reads)' },
    'fuzz-seconds': {
      type: 'number',
      describe: 'After the replays, fuzz the build this long from the cassettes replayed (mcp-cassette fuzz); findings join the reports',
    },
    'fuzz-out': { type: 'string', describe: "With --fuzz-seconds: where the findings' cassettes go (default fuzz-findings)" },
    'fuzz-seed': { type: 'number', describe: 'With --fuzz-seconds: the seed of the cases (default: a random one, printed in the reports)' },
    shard: {
      type: 'string',
      describe:
        'Replay only part K of N of the cassettes (e.g. 2/3), split by path alike on every runner; merge the parts with merge-reports',
    },
    'baseline-build': {
      type: 'string',
      describe:
        'Base-vs-PR: a shell command that starts the base build (stdio); fresh cassettes are recorded from it, then replayed against the build',
    },
    'baseline-url': { type: 'string', describe: 'Base-vs-PR: the Streamable HTTP endpoint of the base build' },
    client: {
      type: 'string',
      describe:
        'Base-vs-PR: a shell command (a client script) to record the base build with, instead of the cassettes; it connects to $MCP_CASSETTE_SERVER or $MCP_CASSETTE_URL',
    },
    'record-dir': { type: 'string', describe: 'Base-vs-PR: keep the fresh cassettes of the base build in this folder' },
    timeout: { type: 'number', describe: 'Per-request timeout in ms (default 10000)' },
    ignore: {
      type: 'string',
      array: true,
      default: [],
      describe: "Also ignore this JSON Pointer or glob in replay (as replay's --ignore); repeatable",
    },
    config: { type: 'string', describe: 'Replay config file (default: ./mcp-cassette.config.json when it exists)' },
    header: { type: 'string', array: true, default: [], describe: 'HTTP: send this "Name: value" header with every request; repeatable' },
    quiet: { type: 'boolean', default: false, describe: 'No console report on stdout (report files and annotations are still written)' },
  },
  handler: async (args, context) => {
    // A report that cannot be written is said before any build starts, not after the run.
    checkReportPaths([
      ['--summary', args.summary as string | undefined],
      ['--junit', args.junit as string | undefined],
      ['--sarif', args.sarif as string | undefined],
      ['--json', args.json as string | undefined],
    ]);
    return (await import('./check-run.js')).CHECK_HANDLER(args, context);
  },
  releasesStdin: true,
};
