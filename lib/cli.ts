#!/usr/bin/env node
/**
 * The composition root: the only module that knows every command and the only one that sets the
 * process's exit status. `record -- <server>` takes a fast path that avoids loading yargs before
 * the server is spawned (see fast-args.ts).
 */
import { fileURLToPath } from 'node:url';
import { parseFast } from './fast-args.js';
import { isCassetteError, SESSION_NOT_SAVED_EXIT } from './errors.js';
import { quietOnClosedStdout } from './cli-output.js';
import { RECORD_OPTIONS } from '../recorder/record-options.js';
import { recordArgsFrom, runRecord, type RecordHooks } from '../recorder/record-command.js';
import type { ExitStatus } from '../recorder/stdio-recorder.js';

const USAGE_EXIT = 2;

/** The live validator runs in a worker thread that the recorder starts after the spawn. */
const recordHooks: RecordHooks = {
  liveWorker: (args) => ({
    script: fileURLToPath(new URL('../validators/live-worker.js', import.meta.url)),
    data: {
      logLevel: args.logLevel,
      ...(args.logFile ? { logFile: args.logFile } : {}),
      ...(args.failOn ? { failOn: args.failOn } : {}),
      ...(args.alertWebhook ? { webhook: args.alertWebhook } : {}),
      ...(args.alertExec ? { exec: args.alertExec } : {}),
    },
  }),
};

async function main(argv: string[]): Promise<void> {
  quietOnClosedStdout();
  if (argv[0] === 'record') {
    const fast = parseFast(argv.slice(1), RECORD_OPTIONS);
    if (fast) {
      await finishRecord(await runRecord(recordArgsFrom(fast), recordHooks));
      return;
    }
  }
  if (argv[0] === 'serve' && argv[1] !== undefined && !argv[1].startsWith('-')) {
    // `serve` is a host's server command too: a client may give it a second to answer, so it
    // skips yargs like `record` does, and loads only its own modules.
    const { SERVE_OPTIONS } = await import('../replay/serve/serve-options.js');
    const fast = parseFast(argv.slice(2), SERVE_OPTIONS);
    if (fast) {
      const { runServe } = await import('../replay/serve/run-serve.js');
      process.exitCode = await runServe(argv[1], fast);
      process.stdin.destroy();
      return;
    }
  }
  const { buildCli } = await import('./cli-commands.js');
  await buildCli(argv, { finishRecord, recordHooks }).parseAsync();
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
    process.stderr.write(`mcp-cassette: ${err.message}\n`);
    process.exitCode = err.code === 'MCPC_SPAWN_FAILED' ? spawnExit(err) : USAGE_EXIT;
    process.stdin.destroy();
    return;
  }
  process.stderr.write(`mcp-cassette: internal error (a bug in mcp-cassette, not in your server or input: please report it with this stack trace): ${(err as Error)?.stack ?? String(err)}\n`);
  process.exitCode = 70; // EX_SOFTWARE
  process.stdin.destroy();
});

function spawnExit(err: Error): number {
  const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
  return cause?.code === 'ENOENT' ? 127 : 126;
}
