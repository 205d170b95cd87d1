/**
 * The entry point and, with cli-commands.ts (the list of commands and the yargs parser built from
 * it), the composition root: the only modules that know every feature and set the process's exit
 * status. `record -- <server>` and `serve <cassette>` take a fast path that avoids loading yargs
 * before the server is spawned (see fast-args.ts), and run the same command modules' handlers.
 */
import { appendFileSync } from 'node:fs';
import { parseFast } from './fast-args.js';
import { textRedactionSpec } from './payload-redact.js';
import { isCassetteError, SESSION_NOT_SAVED_EXIT } from './errors.js';
import { quietOnClosedStdout, useColour } from './cli-output.js';
import type { Logger } from './log.js';
import { setSettleHooks } from './cassette/settle-hooks.js';
import { packageVersion } from './version.js';
import { workerScript } from './paths.js';
import { sourceStack } from './stack-sources.js';
import { RECORD_OPTIONS } from '../recorder/record-options.js';
import { recordArgsFrom } from '../recorder/record-args.js';
import { abandonServer, spawnRecordedServer, takeEarlyServer, type SpawnedServer } from '../recorder/server-spawn.js';
import type { RecordHooks } from '../recorder/record-run.js';
import type { CliHooks } from './cli-commands.js';
import type { ExitStatus } from '../recorder/stdio-recorder.js';
import { FINISH_COMMAND, type FinisherJob } from '../recorder/finisher-job.js';
import type { SamplingSettings } from '../recorder/capture/sampling.js';

const USAGE_EXIT = 2;

/** The live validator runs in a worker thread that the recorder starts after the spawn. */
const recordHooks: RecordHooks = {
  liveWorker: (args) => ({
    script: workerScript('live-worker', new URL('../validators/live-worker-entry.js', import.meta.url)),
    data: {
      logLevel: args.logLevel,
      logFormat: args.logFormat,
      colour: useColour(process.stderr),
      ...(args.logFile ? { logFile: args.logFile } : {}),
      ...(args.failOn ? { failOn: args.failOn } : {}),
      ...(args.alertWebhook ? { webhook: args.alertWebhook } : {}),
      ...(args.alertExec ? { exec: args.alertExec } : {}),
      redact: textRedactionSpec(args.capture.settings.redaction),
      // --cassette-dir: the rules that compare sessions judge each cassette as it is written.
      ...(args.dir ? { crossSessionAtWrite: true } : {}),
    },
    workers: args.validateWorkers,
  }),
  judgeAtWriteModule: new URL('../validators/judge-at-write.js', import.meta.url).href,
  judgeAtWrite: async (sessions, scope, options) =>
    (await import('../validators/judge-at-write.js')).judgeAtWrite(sessions, scope, options),
};

/** How a journal is settled into its cassette (lib/cassette/settle.ts) by any command: what live
 * validation did not judge is judged, and --sample applies, as the recorder would have done. */
setSettleHooks({
  judge: async (sessions, scope, failOn) =>
    (await import('../validators/judge-at-write.js')).judgeAtWrite(sessions, scope, {
      logger: silentLogger(),
      ...(failOn ? { failOn } : {}),
    }),
  select: async (sessions, sampling) =>
    (await import('../recorder/capture/sampling.js')).sampleSessions(sessions, sampling as SamplingSettings).kept,
});

async function main(argv: string[]): Promise<void> {
  quietOnClosedStdout();
  if (argv[0] === '--version' && argv.length === 1) {
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  if (argv[0] === FINISH_COMMAND) {
    // The recorder's detached finisher (recorder/finisher.ts): not a command anyone types.
    const { runFinisher } = await import('../recorder/finisher.js');
    const { lines } = await runFinisher(JSON.parse(argv[1] ?? '{}') as FinisherJob);
    // Its lines go to the recorder's --log-file, in pino's shape (it has no terminal of its own).
    const record = (msg: string): string =>
      `${JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, name: 'mcp-cassette', msg })}\n`;
    if (argv[2] && lines.length > 0) appendFileSync(argv[2], lines.map(record).join(''));
    return;
  }
  const context: CliHooks = {
    finishRecord,
    recordHooks,
    judgeSession: async (session) => (await import('../validators/judge-session.js')).serverRulesBroken(session),
  };
  if (argv[0] === 'record') {
    const fast = parseFast(argv.slice(1), RECORD_OPTIONS);
    if (fast) {
      // What RECORD_COMMAND's handler does through yargs, with the server spawned before the
      // recorder loads (a usage error is still found first, and starts nothing).
      // The bin spawned the server already (lib/cli.ts), unless it could not tell the command.
      const early = takeEarlyServer();
      let server: SpawnedServer | undefined;
      try {
        const args = recordArgsFrom(fast);
        server = args.http ? undefined : (early ?? spawnRecordedServer(args.command));
        const { runRecord } = await import('../recorder/record-run.js');
        await finishRecord(await runRecord(args, recordHooks, server));
      } catch (err) {
        // A usage error or our failure ends the session: the server must not outlive it (its
        // pipes would keep us alive).
        for (const s of [early, server]) if (s) abandonServer(s);
        throw err;
      }
      return;
    }
  }
  if (argv[0] === 'serve' && argv[1] !== undefined && !argv[1].startsWith('-')) {
    // `serve` is a host's server command too: a client may give it a second to answer, so it
    // skips yargs like `record` does, and loads only its own modules.
    const { SERVE_OPTIONS } = await import('../replay/serve/serve-options.js');
    // Several cassettes (files or directories) come first, before any option.
    let n = 1;
    while (n < argv.length && argv[n] !== '--' && !argv[n]!.startsWith('-')) n++;
    const fast = parseFast(argv.slice(n), SERVE_OPTIONS);
    if (fast) {
      const { SERVE_COMMAND } = await import('../replay/serve/serve-command.js');
      process.exitCode = (await SERVE_COMMAND.handler({ ...fast, _: [], cassette: argv.slice(1, n) }, context)) ?? 0;
      process.stdin.destroy();
      return;
    }
  }
  const { runCli } = await import('./cli-commands.js');
  await runCli(argv, context);
}

/** Ends the proxy the way its server ended: same exit code, or the same signal; 73 when the
 * session could not be saved. */
async function finishRecord(status: ExitStatus): Promise<void> {
  if (status.notSaved) {
    // The server's status gives way: a script or CI job must notice that the session was lost.
    process.exitCode = SESSION_NOT_SAVED_EXIT;
    process.stdin.destroy();
    return;
  }
  if (status.signal) {
    process.stdin.destroy();
    process.removeAllListeners(status.signal);
    process.kill(process.pid, status.signal);
    return;
  }
  process.exitCode = status.code ?? 1;
  // stdin may still be open (the host has not closed it); it must not keep us alive.
  process.stdin.destroy();
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (isCassetteError(err)) {
    // A command line that does not parse is said whole, naming its command (lib/cli-usage.ts).
    process.stderr.write(err.code === 'MCPC_ARGUMENTS' ? `${err.message}\n` : `mcp-cassette: ${err.message}\n`);
    process.exitCode = err.code === 'MCPC_SPAWN_FAILED' ? spawnExit(err) : USAGE_EXIT;
    process.stdin.destroy();
    return;
  }
  process.stderr.write(
    `mcp-cassette: internal error (a bug in mcp-cassette, not in your server or input: please report it with this stack trace): ${(err as Error)?.stack ? sourceStack((err as Error).stack!) : String(err)}\n`,
  );
  process.exitCode = 70; // EX_SOFTWARE
  process.stdin.destroy();
});

/** Judging at settle says what it found in the line the settler writes, not in a log of its own. */
function silentLogger(): Logger {
  const none = (): void => {};
  return { info: none, warn: none, error: none, debug: none } as unknown as Logger;
}

function spawnExit(err: Error): number {
  const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
  return cause?.code === 'ENOENT' ? 127 : 126;
}
