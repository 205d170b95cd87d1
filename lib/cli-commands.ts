import yargs, { type Argv } from 'yargs';
import { RECORD_OPTIONS } from '../recorder/record-options.js';
import { recordArgsFrom, runRecord, type RecordHooks } from '../recorder/record-command.js';
import type { ExitStatus } from '../recorder/stdio-recorder.js';
import { recoverCommand } from '../recorder/recover-command.js';
import { showCommand } from '../recorder/show-command.js';
import { wrapCommand, unwrapCommand } from '../recorder/wrap/wrap-command.js';
import { rulesCommand } from '../validators/rules-command.js';
import { validateCommand } from '../validators/validate-command.js';
import { replayCommand } from '../replay/replay-command.js';
import { probeCommand } from '../validators/probes/probe-command.js';
import { runServe } from '../replay/serve/run-serve.js';
import { SERVE_OPTIONS } from '../replay/serve/serve-options.js';
import type { OptionSpec, ParsedOptions } from './fast-args.js';
import { packageVersion } from './version.js';
import { CassetteError } from './errors.js';

export interface CliHooks {
  finishRecord(status: ExitStatus): Promise<void>;
  recordHooks: RecordHooks;
}

function applyOptions(y: Argv, spec: Record<string, OptionSpec>): Argv {
  for (const [name, s] of Object.entries(spec)) {
    y = y.option(name, {
      type: s.type,
      describe: s.describe,
      ...(s.alias ? { alias: s.alias } : {}),
      ...(s.default !== undefined ? { default: s.default } : {}),
    });
  }
  return y;
}

/** Handlers return an exit code; only this module and cli.ts turn it into process state. */
function exitWith(code: number): void {
  process.exitCode = code;
}

/** `--calibrate` takes an optional number of runs: alone (followed by the cassette, another
 * option or `--`), it becomes `--calibrate=`, so the next word is not taken for its value. Words
 * after `--` are the server's and are left alone. */
function optionalRuns(argv: string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((a, i) => (a === '--calibrate' && (end === -1 || i < end) && !/^\d+$/.test(argv[i + 1] ?? '') ? '--calibrate=' : a));
}

/** yargs takes a lone `-` for a positional, so `--output -` (stdout) would lose its value: it is
 * joined to its option, before `--` only. */
function stdoutValues(argv: string[]): string[] {
  const end = argv.indexOf('--');
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((end === -1 || i < end) && ['--output', '-o', '--report'].includes(a) && argv[i + 1] === '-') {
      out.push(`${a}=-`);
      i++;
    } else out.push(a);
  }
  return out;
}

export function buildCli(argv: string[], hooks: CliHooks): Argv {
  return yargs(stdoutValues(optionalRuns(argv)))
    .scriptName('mcp-cassette')
    .parserConfiguration({ 'populate--': true })
    .version(packageVersion())
    .command(
      'record',
      'Run an MCP server behind the recording proxy: mcp-cassette record [options] [--] <server command> [args...], or record --upstream <url> for Streamable HTTP',
      (y) => applyOptions(y.usage('$0 record [options] [--] <server command> [args...]\n$0 record --upstream <url> [--listen host:port] [options]'), RECORD_OPTIONS),
      async (args) => {
        const command = (args['--'] as string[] | undefined) ?? args._.slice(1);
        const status = await runRecord(recordArgsFrom({ ...args, '--': command.map(String) } as ParsedOptions), hooks.recordHooks);
        await hooks.finishRecord(status);
      },
    )
    .command(
      'recover <cassette>',
      'Fold the journals of recorders that died (SIGKILL, crash) into the cassette',
      (y) => y.positional('cassette', { type: 'string', demandOption: true })
        .option('force', { type: 'boolean', default: false, describe: 'Also fold journals whose recorder still looks alive' }),
      async (args) => exitWith(await recoverCommand(String(args.cassette), Boolean(args.force))),
    )
    .command(
      'show <cassette>',
      'Summarise what a cassette holds: sessions, revisions, peers, messages',
      (y) => y.positional('cassette', { type: 'string', demandOption: true })
        .option('json', { type: 'boolean', default: false, describe: 'Print the summary as JSON' })
        .option('messages', { type: 'boolean', default: false, describe: 'List every message, one line each' }),
      async (args) => exitWith(await showCommand(String(args.cassette), { json: Boolean(args.json), messages: Boolean(args.messages) })),
    )
    .command(
      'wrap <config>',
      'Rewrite a host config (Claude Desktop, VS Code, Cursor) so its servers run through `record` (stdio) or point at a recording proxy (HTTP)',
      (y) => y.positional('config', { type: 'string', demandOption: true })
        .option('server', { type: 'string', array: true, describe: 'Only these server entries (repeatable); default: every stdio entry' })
        .option('cassette-dir', { type: 'string', describe: 'Where the cassettes go (default: ~/.mcp-cassette/cassettes)' })
        .option('port', { type: 'number', describe: 'Listen port for the first HTTP entry\'s proxy, counting up for the next (default: free ports)' }),
      async (args) => exitWith(await wrapCommand(String(args.config), {
        servers: (args.server as string[] | undefined) ?? [],
        ...(args['cassette-dir'] ? { cassetteDir: String(args['cassette-dir']) } : {}),
        ...(typeof args.port === 'number' ? { port: args.port } : {}),
      })),
    )
    .command(
      'unwrap <config>',
      'Restore the server entries that `wrap` changed, exactly as they were',
      (y) => y.positional('config', { type: 'string', demandOption: true })
        .option('server', { type: 'string', array: true, describe: 'Only these server entries (repeatable)' }),
      async (args) => exitWith(await unwrapCommand(String(args.config), { servers: (args.server as string[] | undefined) ?? [] })),
    )
    .command(
      'validate <cassette...>',
      'Check recorded traffic against the MCP specification (the rules of `mcp-cassette rules`)',
      (y) => y.positional('cassette', { type: 'string', array: true, demandOption: true })
        .option('format', { type: 'string', default: 'text', describe: 'text, json, junit, sarif or github (workflow annotations)' })
        .option('fail-on', { type: 'string', describe: 'Exit 1 when violations at this level (error or warning) were found' })
        .option('output', { alias: 'o', type: 'string', describe: 'Write the report to this file instead of stdout' })
        .option('schema', { type: 'string', describe: 'Also check every message against this official MCP schema.json, exactly' }),
      async (args) => exitWith(await validateCommand({
        ...(args.schema !== undefined ? { schema: String(args.schema) } : {}),
        cassettes: (args.cassette as string[]).map(String),
        format: String(args.format),
        ...(args['fail-on'] !== undefined ? { failOn: String(args['fail-on']) } : {}),
        ...(args.output !== undefined ? { output: String(args.output) } : {}),
      })),
    )
    .command(
      'probe <cassette>',
      'Send crafted requests derived from a cassette to a server you name and check the rules a passive proxy cannot see: probe <cassette> -- <server command> [args...], or probe <cassette> --url <endpoint>',
      (y) => y.usage('$0 probe <cassette> [options] -- <server command> [args...]\n$0 probe <cassette> --url <endpoint> [options]')
        .positional('cassette', { type: 'string', demandOption: true })
        .option('url', { type: 'string', describe: 'Streamable HTTP endpoint to probe (instead of a server command)' })
        .option('timeout', { type: 'number', describe: 'Per-request deadline in ms (default 10000)' })
        .option('allow-side-effects', { type: 'boolean', default: false, describe: 'Also re-send recorded requests that may act (tools without readOnlyHint)' })
        .option('format', { type: 'string', default: 'text', describe: 'text, json, junit, sarif or github (workflow annotations)' })
        .option('fail-on', { type: 'string', describe: 'Exit 1 when a new failure (or a stale baseline entry) at this level (error or warning) was found' })
        .option('output', { alias: 'o', type: 'string', describe: 'Write the report to this file instead of stdout' })
        .option('expected-failures', { type: 'string', describe: 'A YAML baseline of known failures' })
        .option('header', { type: 'string', array: true, default: [], describe: 'HTTP: send this "Name: value" header with every request; repeatable' })
        .option('probe', { type: 'string', array: true, default: [], describe: 'Run only this probe; repeatable' })
        .option('eof-grace', { type: 'number', describe: 'stdio: how long the server may take to exit after stdin is closed, in ms (default 2000)' }),
      async (args) => exitWith(await probeCommand({
        cassette: String(args.cassette),
        command: ((args['--'] as unknown[] | undefined) ?? []).map(String),
        ...(args.url !== undefined ? { url: String(args.url) } : {}),
        ...(args.timeout !== undefined ? { timeout: Number(args.timeout) } : {}),
        allowSideEffects: Boolean(args['allow-side-effects']),
        format: String(args.format),
        ...(args['fail-on'] !== undefined ? { failOn: String(args['fail-on']) } : {}),
        ...(args.output !== undefined ? { output: String(args.output) } : {}),
        ...(args['expected-failures'] !== undefined ? { expectedFailures: String(args['expected-failures']) } : {}),
        header: (args.header as unknown[]).map(String),
        probe: (args.probe as unknown[]).map(String),
        ...(args['eof-grace'] !== undefined ? { eofGrace: Number(args['eof-grace']) } : {}),
      })),
    )
    .command(
      'replay <cassette>',
      'Play the client side of a cassette against a live server and report what changed: replay <cassette> -- <server command> [args...], or replay <cassette> --url <endpoint>',
      (y) => y.usage('$0 replay <cassette> [options] -- <server command> [args...]\n$0 replay <cassette> --url <endpoint> [options]')
        .positional('cassette', { type: 'string', demandOption: true })
        .option('url', { type: 'string', describe: 'Streamable HTTP endpoint to replay against (instead of a server command)' })
        .option('timeout', { type: 'number', describe: 'Per-request timeout in ms (default 10000)' })
        .option('ignore', { type: 'string', array: true, default: [], describe: 'Also ignore this JSON Pointer or glob (/result/content/*/text, **/etag, timestamp), for every interaction, or scoped: "<method> [<name>] <pointer>" ("tools/call get_env /result/content/*/text"); repeatable' })
        .option('calibrate', { type: 'string', describe: 'Replay N times (default 2) against the build that recorded the cassette and store the paths whose values differ in it; later replays skip them: --calibrate [N]' })
        .option('report', { type: 'string', array: true, default: [], describe: 'Also write json=FILE, junit=FILE, markdown=FILE, or github (workflow annotations on stdout); repeatable' })
        .option('strict', { type: 'boolean', default: false, describe: 'Exit 1 on warnings too' })
        .option('config', { type: 'string', describe: 'Config file (default: ./mcp-cassette.config.json when it exists)' })
        .option('header', { type: 'string', array: true, default: [], describe: 'HTTP: send this "Name: value" header with every request (e.g. a real token for a redacted one); repeatable' })
        .option('quiet', { type: 'boolean', default: false, describe: 'No console report (reports from --report are still written)' })
        .option('update', { type: 'boolean', default: false, describe: 'Re-record the sessions that changed from the live server (keeps redactions and the other sessions); exit 0 once written' })
        .option('redact-header', { type: 'string', array: true, default: [], describe: 'With --update over HTTP: also mask this response header in the cassette; repeatable' })
        .option('progress', { type: 'boolean', default: true, describe: 'Progress bar on stderr for long cassettes (only on a terminal, never in CI); --no-progress turns it off' }),
      async (args) => exitWith(await replayCommand({
        cassette: String(args.cassette),
        command: ((args['--'] as unknown[] | undefined) ?? []).map(String),
        ...(args.url !== undefined ? { url: String(args.url) } : {}),
        ...(args.timeout !== undefined ? { timeout: Number(args.timeout) } : {}),
        ignore: (args.ignore as unknown[]).map(String),
        report: (args.report as unknown[]).map(String),
        strict: Boolean(args.strict),
        ...(args.config !== undefined ? { config: String(args.config) } : {}),
        header: (args.header as unknown[]).map(String),
        quiet: Boolean(args.quiet),
        update: Boolean(args.update),
        redactHeader: (args['redact-header'] as unknown[]).map(String),
        progress: Boolean(args.progress),
        ...(args.calibrate !== undefined ? { calibrate: String(args.calibrate) } : {}),
      })),
    )
    .command(
      'serve <cassette>',
      'Serve a cassette as a mock MCP server: over stdio (a host\'s server command), or Streamable HTTP with --listen; -- <server command> for record modes',
      (y) => applyOptions(y.usage('$0 serve <cassette> [options] [-- <real server command> [args...]]')
        .positional('cassette', { type: 'string', demandOption: true }), SERVE_OPTIONS),
      async (args) => {
        const command = (args['--'] as unknown[] | undefined) ?? args._.slice(1);
        exitWith(await runServe(String(args.cassette), { ...args, '--': command.map(String) } as ParsedOptions));
        // stdin may still be open (HTTP mode, or a host that keeps it); it must not keep us alive.
        process.stdin.destroy();
      },
    )
    .command(
      'rules',
      'List every validation rule with its severity, revisions and spec link',
      (y) => y.option('json', { type: 'boolean', default: false }).option('markdown', { type: 'boolean', default: false }),
      async (args) => exitWith(await rulesCommand({ json: Boolean(args.json), markdown: Boolean(args.markdown) })),
    )
    .demandCommand(1, 'Name a command: record, recover, show, validate, replay, serve, probe, rules, wrap or unwrap')
    .recommendCommands()
    .strict()
    .help()
    .fail((msg, err) => {
      // Throwing stops yargs from running a handler; cli.ts prints the message and exits 2.
      throw err ?? new CassetteError('MCPC_USAGE', `${msg}\nRun \`mcp-cassette --help\` for usage.`);
    });
}
