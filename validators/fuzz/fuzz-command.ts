import type { CommandModule } from '../../lib/command.js';

/**
 * `mcp-cassette fuzz`: what the command line knows of it (options, help). The work is in
 * fuzz-run.ts, loaded when the command runs, so that `--help` loads neither the generators nor
 * the validator.
 */
export const FUZZ_COMMAND: CommandModule = {
  name: 'fuzz',
  describe:
    'Fuzz a server from its own cassettes: mutated arguments, envelopes and sequences of the recorded requests; each distinct finding shrunk to a cassette that replay reproduces: fuzz <cassette|dir...> -- <server command> [args...], or --url <endpoint>',
  usage:
    '$0 fuzz <cassette|dir...> [--seconds N | --runs N] [--seed S] [--out DIR] [options] -- <server command> [args...]\n$0 fuzz <cassette|dir...> --url <endpoint> [options] [-- <command that starts it>]',
  positionals: [{ name: 'cassette', variadic: true }],
  options: {
    url: {
      type: 'string',
      describe: 'Streamable HTTP endpoint to fuzz; with a command after --, the fuzzer starts it and starts it again after a crash',
    },
    seconds: { type: 'number', describe: 'Fuzz for this long, shrinking included (default 60 when --runs is not given)' },
    runs: { type: 'number', describe: 'Send at most this many cases (the same --seed and --runs send the same cases)' },
    seed: { type: 'number', describe: 'The seed of the case sequence, 0 to 4294967295 (default: a random one, printed)' },
    out: { type: 'string', default: 'fuzz-findings', describe: "Where each finding's cassette is written" },
    timeout: { type: 'number', describe: 'A request unanswered for this long, in ms, is a hang (default 5000)' },
    'allow-side-effects': {
      type: 'boolean',
      default: false,
      describe: 'Also call tools not annotated readOnlyHint: true (they may act: never against production)',
    },
    header: { type: 'string', array: true, default: [], describe: 'HTTP: send this "Name: value" header with every request; repeatable' },
    'fail-on': { type: 'string', default: 'warning', describe: 'Exit 1 when a finding at this level (error or warning) was found' },
    summary: {
      type: 'string',
      describe: 'Write the Markdown summary here (it is appended to $GITHUB_STEP_SUMMARY anyway when that is set)',
    },
    junit: { type: 'string', describe: 'Write a JUnit XML report here' },
    sarif: { type: 'string', describe: 'Write a SARIF 2.1.0 report here' },
    json: { type: 'string', describe: 'Write the run as JSON here (- for stdout, the text report then goes to stderr)' },
  },
  help: {
    examples: [
      ['$0 fuzz cassettes/ --seconds 60 -- node dist/server.js', 'a minute of cases derived from every cassette in cassettes/'],
      ['$0 fuzz weather.cassette.json --runs 500 --seed 7 -- node weather.js', 'the same 500 cases every time'],
      ['$0 replay fuzz-findings/crash-tools-call-lookup-1a2b3c4d.cassette.json -- node dist/server.js', 'does the build still crash?'],
    ],
    exitCodes: [
      ['0', 'no finding at --fail-on (default warning: any finding)'],
      ['1', 'a finding at --fail-on; each one reproduced is a cassette in --out'],
      ['2', 'it could not run: usage, an unreadable cassette, nothing to fuzz, a server that does not start or answer'],
      ['70', 'internal error (a bug in mcp-cassette: please report it)'],
    ],
    docs: 'fuzz.md',
  },
  handler: async (args, context) => (await import('./fuzz-run.js')).FUZZ_HANDLER(args, context),
};
