#!/usr/bin/env node
/**
 * `npm start`: what mcp-cassette is for, in four steps and under a minute. A weather server whose
 * 1.0.0 build has a classic stdio bug (a debug print on stdout) is recorded through the proxy
 * while the official SDK client uses it (a live alert), the cassette is validated (the same
 * verdict, for CI), replayed against the 2.0.0 build (which renamed an output field and made an
 * argument required: breaking, and why) and served to the client with no real server. Each step
 * runs the real `mcp-cassette` command and prints the one to try next.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { cliPath, packageRoot } from '../../lib/paths.js';
import { quietOnClosedStdout, useColour } from '../../lib/cli-output.js';
import { askForecast } from './demo-client.js';

quietOnClosedStdout();
const started = Date.now();
const dir = resolve(process.argv[2] ?? 'mcp-cassette-demo');
const cassette = join(dir, 'weather.cassette.json');
const server = join(packageRoot, 'dist', 'recorder', 'demo', 'weather-server.js');
const colour = useColour(process.stdout);
const bold = (s: string): string => (colour ? `\x1b[1m${s}\x1b[22m` : s);
const dim = (s: string): string => (colour ? `\x1b[2m${s}\x1b[22m` : s);

/** How a reader runs the CLI from here, and paths as short as they can be. */
const here = (path: string): string => (relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path) || '.');
const mc = `node ${here(cliPath)}`;
const serverCommand = (build: string): string => `node ${here(server)} ${build}`;
const indent = (text: string): string =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
const out = (text = ''): void => void process.stdout.write(`${text}\n`);
const step = (n: number, title: string): void => out(`\n${bold(`${n}/4  ${title}`)}`);
const tryNext = (command: string, why: string): void => out(`${dim('  try next:')} ${command}  ${dim(`# ${why}`)}`);

/** Runs the CLI as a reader would, and shows the command, its output and its exit status. */
function run(args: string[], shown: string): { code: number | null; stdout: string } {
  out(`  $ ${shown}`);
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...(colour ? { FORCE_COLOR: '1' } : { NO_COLOR: '1' }) },
  });
  if (r.stdout.trim()) out(indent(r.stdout));
  out(dim(`    (exit ${r.status})`));
  return { code: r.status, stdout: r.stdout };
}

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
out(bold('mcp-cassette: record, validate, replay and serve one MCP server'));
out('The official MCP SDK client asks demo-weather for the forecast in Paris, through the proxy.');

step(1, 'record: the proxy forwards every byte and judges each message as it passes');
// --log-level warn: the alerts and the summary, not the session's start and save. --fail-on error:
// the proxy waits for every verdict before it exits (a proxy under a host gives them 50 ms, and a
// busy machine can miss the summary then) and exits 1 for the error, as in CI.
const recordArgs = [
  'record',
  '--fail-on',
  'error',
  '--cassette',
  cassette,
  '--log-format',
  'pretty',
  '--log-level',
  'warn',
  '--',
  process.execPath,
  server,
  '1.0.0',
];
out(`  $ ${mc} record --fail-on error --cassette ${here(cassette)} -- ${serverCommand('1.0.0')}`);
const recorded = await askForecast(process.execPath, [cliPath, ...recordArgs], /STDIO-STDOUT-CLEAN/);
out(`  the client got: ${recorded.answer}`);
out("  live alert on the proxy's stderr (a host shows it in its server log), and the session's summary:");
out(indent(recorded.stderr || '(none: the live validator missed it)'));
out('  Build 1.0.0 prints "debug: looking up Paris" on stdout, where only MCP messages may go; a host');
out('  may drop the connection over it. The client here skipped the line, so nobody would have noticed.');
tryNext(`${mc} show ${here(cassette)} --messages`, 'every message of the session, the stray line included');

step(2, 'validate: the same verdict offline, for CI');
run(['validate', cassette], `${mc} validate ${here(cassette)}`);
tryNext(
  `${mc} validate ${here(cassette)} --fail-on error --format sarif -o weather.sarif`,
  'exit 1 on errors, a SARIF file for code scanning',
);

step(3, 'replay: the recording against the next build, 2.0.0');
const replayed = run(
  ['replay', cassette, '--', process.execPath, server, '2.0.0'],
  `${mc} replay ${here(cassette)} -- ${serverCommand('2.0.0')}`,
);
out('  Build 2.0.0 fixed the debug print, but renamed the output field tempC to temperature and made');
out('  `units` a required argument: every client that calls get_forecast as 1.0.0 allowed now fails.');
out(`  replay says so (BREAKING, exit ${replayed.code}), with the path and the values that changed.`);
tryNext(`${mc} replay ${here(cassette)} --update -- ${serverCommand('2.0.0')}`, 'accept the change: re-record the answers');

step(4, 'serve: the cassette as a mock MCP server, no real server running');
out(`  $ ${mc} serve ${here(cassette)}`);
const served = await askForecast(process.execPath, [cliPath, 'serve', cassette, '--log-level', 'warn']);
out(`  the client got: ${served.answer}  ${dim(`(serve exit ${served.exitCode})`)}`);
out('  The same answer as in step 1, from the cassette: tests of a client need no server, network or keys.');
tryNext(`${mc} serve ${here(cassette)} --listen 127.0.0.1:0`, 'the same over Streamable HTTP; it prints the URL');

out(
  `\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s. The cassette: ${here(cassette)}. Docs: ${here(join(packageRoot, 'docs'))}/`,
);
