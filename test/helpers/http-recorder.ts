import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import type { ExecutionContext } from 'ava';
import { emptyCassette, type Cassette } from '../../lib/cassette/cassette.js';
import { existsSync } from 'node:fs';
import { cli, node } from './paths.js';
import { collect, spawnTracked, waitForOutput, type Finished } from './proc.js';
import { readCassette } from './recording.js';

export interface RunningHttpRecorder {
  url: string;
  child: ChildProcess;
  /** SIGINT, wait for the cassette, return it. */
  stop(): Promise<{ cassette: Cassette; result: Finished }>;
}

/** `mcp-cassette record --upstream <url>` as a subprocess; resolves once it printed its URL. */
export async function startHttpRecorder(
  t: ExecutionContext,
  upstream: string,
  cassette: string,
  extra: string[] = [],
): Promise<RunningHttpRecorder> {
  const child = spawnTracked(t, node, [cli, 'record', '--upstream', upstream, '--cassette', cassette, '--log-level', 'warn', ...extra]);
  const finished = collect(child);
  const out = await waitForOutput(child.stdout!, (s) => s.includes('\n'));
  const url = out.split('\n')[0]!.trim();
  return {
    url,
    child,
    async stop() {
      child.kill('SIGINT');
      const result = await finished;
      // A recording whose sessions were all left out (--sample) writes no cassette.
      return { cassette: existsSync(cassette) ? readCassette(cassette) : emptyCassette(), result };
    },
  };
}

export async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) await once(child, 'close');
}
