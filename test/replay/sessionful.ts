/**
 * Records test/servers/sessionful-target.ts (a 2025-era sessionful Streamable HTTP server on the
 * v1 SDK) through the real proxy, and starts it for replays: the recordings hold the client's own
 * GET (listen stream) and DELETE (session end) exchanges.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { cli, node, root } from '../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../helpers/proc.js';
import { waitForSessions } from '../helpers/recording.js';
import { sharedArtifact } from '../helpers/shared-artifact.js';
import { runV1HttpScenario } from '../peers/v1-http-client.js';

export const sessionfulTarget = join(root, 'dist', 'test', 'servers', 'sessionful-target.js');

export const firstLine = async (child: ChildProcess) =>
  (await waitForOutput(child.stdout!, (s) => s.includes('\n'))).split('\n')[0]!.trim();

/** Records `scenario` through `record --upstream` against the sessionful target started with
 * `serverArgs` (e.g. `--regression get-405`: a recording of a server that refused the GET). */
export function recordSessionful(
  cassette: string,
  scenario: (url: string) => Promise<unknown>,
  serverArgs: string[] = [],
  /** A name for this scenario when other files record the very same one: the run records it
   * once (test/helpers/shared-artifact.ts) and each gets a copy. */
  shareAs?: string,
): Promise<void> {
  if (shareAs)
    return sharedArtifact(`sessionful-${shareAs}.cassette.json`, cassette, (path) => recordSessionfulNow(path, scenario, serverArgs));
  return recordSessionfulNow(cassette, scenario, serverArgs);
}

async function recordSessionfulNow(cassette: string, scenario: (url: string) => Promise<unknown>, serverArgs: string[]): Promise<void> {
  const upstream = spawn(node, [sessionfulTarget, ...serverArgs], { stdio: ['ignore', 'pipe', 'ignore'] });
  let proxy: ChildProcess | undefined;
  try {
    const upstreamUrl = await firstLine(upstream);
    proxy = spawn(node, [cli, 'record', '--log-level', 'error', '--upstream', upstreamUrl, '--cassette', cassette], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    await scenario(await firstLine(proxy));
    const closed = new Promise((r) => proxy!.on('close', r));
    proxy.kill('SIGINT');
    await closed;
    await waitForSessions(cassette, 1);
  } finally {
    if (proxy && proxy.exitCode === null && proxy.signalCode === null) proxy.kill('SIGKILL');
    upstream.kill('SIGKILL');
  }
}

/** Starts the sessionful target for a replay; resolves its URL. The process ends with the test. */
export async function startSessionful(t: ExecutionContext, args: string[] = []): Promise<string> {
  const child = spawnTracked(t, node, [sessionfulTarget, ...args]);
  child.stderr?.on('data', () => {});
  return firstLine(child);
}

/** The v1 SDK client's session that several files start from: add, then announce (the server
 * pushes on the GET stream), then confirm (it asks the client, elicitation), recorded once per
 * run (the returned answers are what the live server gave). */
export const V1_STEPS = async (client: import('@modelcontextprotocol/sdk/client/index.js').Client) => ({
  add: await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
  announce: await client.callTool({ name: 'announce', arguments: { what: 'release' } }),
  confirm: await client.callTool({ name: 'confirm', arguments: { action: 'deploy' } }),
});

/** Records the V1_STEPS session of the sessionful target into `cassette` (a copy of the run's one). */
export const recordV1Sessionful = (cassette: string): Promise<void> =>
  recordSessionful(cassette, (url) => runV1HttpScenario(url, V1_STEPS), [], 'v1-add-announce-confirm');
