/**
 * A target with the recording proxy in front of it, so that the traffic `check` replays (or a
 * client script sends) is written to a cassette of its own and can be validated afterwards with
 * the same rules as `validate`. stdio: the server command is wrapped in `mcp-cassette record`
 * (each session the replay starts is one more proxy process, appending to the same cassette
 * under its lock). Streamable HTTP: one `record --upstream` process in front of the endpoint,
 * stopped with SIGTERM (it saves on the signal) once the traffic is over.
 */
import type { ChildProcess } from 'node:child_process';
import { cliPath } from '../lib/paths.js';
import { CassetteError } from '../lib/errors.js';
import { killGroup, spawnServer } from '../lib/server-process.js';
import { settleBeforeRead } from '../lib/cassette/settle-read.js';

/** Where the traffic goes, exactly one of the two. */
export type Target = { command: string[] } | { url: string };

/** The proxy's own settings. It masks credentials as `record` does, so none reaches the reports,
 * and validates live, so that what it masked is still judged: the cassette is validated again
 * afterwards, and a live verdict whose evidence the cassette holds masked stands then
 * (lib/cassette/masked-verdicts.ts). `--fail-on` makes it wait for every live verdict before it
 * exits (its exit status is not read). Its logs are silent (stdout carries the protocol, stderr
 * is the server's). */
const RECORD = (cassette: string): string[] => [cliPath, 'record', '--cassette', cassette, '--fail-on', 'error', '--log-level', 'silent'];

export function recordingCommand(command: readonly string[], cassette: string): string[] {
  return [process.execPath, ...RECORD(cassette), '--', ...command];
}

export interface RecordingTarget {
  target: Target;
  /** Ends the HTTP proxy and waits until the cassette is written, then folds (and judges) what a
   * proxy killed before it wrote the cassette left in its journal: a replay or a client gives a
   * stdio server a second or two to exit once it closed it, and then kills it. */
  close(): Promise<void>;
}

function firstLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    let stderr = '';
    const timer = setTimeout(() => done(new Error(`no URL after ${timeoutMs} ms`)), timeoutMs);
    const done = (err?: Error, line?: string): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      if (err) reject(new Error(`${err.message}${stderr ? `: ${stderr.trim().slice(-400)}` : ''}`));
      else resolve(line!);
    };
    const onData = (c: Buffer): void => {
      text += c.toString('utf8');
      const nl = text.indexOf('\n');
      if (nl !== -1) done(undefined, text.slice(0, nl).trim());
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.once('exit', (code) => done(new Error(`the recording proxy exited (code ${String(code)})`)));
  });
}

export async function startRecording(target: Target, cassette: string): Promise<RecordingTarget> {
  const settle = (): Promise<void> => settleBeforeRead([cassette]);
  if ('command' in target) return { target: { command: recordingCommand(target.command, cassette) }, close: settle };
  const child = spawnServer([process.execPath, ...RECORD(cassette), '--upstream', target.url, '--listen', '127.0.0.1:0']);
  let url: string;
  try {
    url = await firstLine(child, 15_000);
  } catch (err) {
    killGroup(child, 'SIGKILL');
    throw new CassetteError('MCPC_LISTEN_FAILED', `cannot put the recording proxy in front of ${target.url}: ${(err as Error).message}`);
  }
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('close', () => resolve());
  });
  return {
    target: { url },
    close: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
      await settle();
    },
  };
}
