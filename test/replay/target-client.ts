/**
 * Records cassettes of test/servers/replay-target.ts through the real proxy with the official v2
 * SDK client, in both eras and over both transports, so the replay tests start from genuine
 * traffic.
 */
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { cli, node, root } from '../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../helpers/proc.js';
import { waitForSessions } from '../helpers/recording.js';
import { sharedArtifact } from '../helpers/shared-artifact.js';

export const replayTarget = join(root, 'dist', 'test', 'servers', 'replay-target.js');

export type Scenario = 'full' | 'tools-only';

export type TargetEndpoint = { command: string; args: string[] } | { url: string };

export async function runTargetScenario(target: TargetEndpoint, mode: 'legacy' | 'pin', scenario: Scenario = 'full'): Promise<void> {
  const client = new Client(
    { name: 'replay-test-client', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} }, roots: {} },
      versionNegotiation: { mode: mode === 'pin' ? { pin: '2026-07-28' } : 'legacy' },
    },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ok: true } }));
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///tmp/project', name: 'project' }] }));
  let transport: Transport;
  if ('url' in target) {
    transport = new StreamableHTTPClientTransport(new URL(target.url));
  } else {
    const stdio = new StdioClientTransport({ command: target.command, args: target.args, stderr: 'pipe' });
    stdio.stderr?.on('data', () => {});
    transport = stdio;
  }
  await client.connect(transport);
  try {
    // Every page of the tool list (one page unless the server runs with --paginate-tools).
    let tools: string | undefined;
    do {
      tools = (await client.listTools(tools !== undefined ? { cursor: tools } : {})).nextCursor;
    } while (tools !== undefined);
    if (scenario === 'tools-only') return;
    await client.callTool({ name: 'search', arguments: { query: 'cats', mode: 'deep' } });
    await client.callTool({ name: 'stamp', arguments: {} });
    await client.callTool({ name: 'confirm_action', arguments: { action: 'deploy' } });
    await client.callTool({ name: 'count', arguments: { n: 3 } }, { onprogress: () => {} });
    // Every page of the paginated resource list, following the server's (random) cursors.
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor !== undefined ? { cursor } : {});
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    await client.readResource({ uri: 'example://readme' });
    await client.readResource({ uri: 'example://locked' }).catch(() => undefined);
    await client.listPrompts();
    await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  } finally {
    await client.close();
  }
}

export interface RecordOptions {
  /** Extra server arguments (recorded in the cassette's target, redacted by the recorder). */
  serverArgs?: string[];
  /** Also record a third, shorter session (tools/list only), after the two full ones. */
  extraSession?: boolean;
}

/** Records one session per era of the plain replay target into `cassette` (stdio): a copy of
 * the run's shared recording with these options (test/helpers/shared-artifact.ts). */
export function recordTargetCassette(cassette: string, options: RecordOptions = {}): Promise<void> {
  return sharedArtifact(`target-stdio-${recordingKey(options)}.cassette.json`, cassette, (path) => recordTarget(path, options));
}

/** A file-name-safe key for a recording's options. */
function recordingKey(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 12);
}

async function recordTarget(cassette: string, options: RecordOptions): Promise<void> {
  let sessions = 0;
  const runs: Array<['legacy' | 'pin', Scenario]> = [
    ['legacy', 'full'],
    ['pin', 'full'],
  ];
  if (options.extraSession) runs.push(['pin', 'tools-only']);
  for (const [mode, scenario] of runs) {
    await runTargetScenario(
      {
        command: node,
        args: [cli, 'record', '--log-level', 'warn', '--cassette', cassette, '--', node, replayTarget, ...(options.serverArgs ?? [])],
      },
      mode,
      scenario,
    );
    sessions = (await waitForSessions(cassette, sessions + 1)).sessions.length;
  }
}

/** Starts the replay target over Streamable HTTP; resolves its URL. The process ends with the test. */
export async function startHttpTarget(t: ExecutionContext, args: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const child = spawnTracked(t, node, [replayTarget, '--http', ...args]);
  child.stderr?.on('data', () => {});
  const url = (await waitForOutput(child.stdout!, (s) => s.includes('\n'))).trim();
  return { url, child };
}

/** Records both eras of the replay target over Streamable HTTP through `record --upstream`
 * (`recordArgs`: more `record` options, e.g. `--redact-header`): a copy of the run's shared
 * recording with these options. */
export function recordHttpTargetCassette(cassette: string, recordArgs: string[] = []): Promise<void> {
  return sharedArtifact(`target-http-${recordingKey(recordArgs)}.cassette.json`, cassette, (path) => recordHttpTarget(path, recordArgs));
}

async function recordHttpTarget(cassette: string, recordArgs: string[]): Promise<void> {
  const upstream = spawn(node, [replayTarget, '--http'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const proxy = { child: undefined as ChildProcess | undefined };
  try {
    const upstreamUrl = (await waitForOutput(upstream.stdout!, (s) => s.includes('\n'))).trim();
    proxy.child = spawn(node, [cli, 'record', '--log-level', 'warn', ...recordArgs, '--upstream', upstreamUrl, '--cassette', cassette], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const proxyUrl = (await waitForOutput(proxy.child.stdout!, (s) => s.includes('\n'))).trim();
    for (const mode of ['legacy', 'pin'] as const) await runTargetScenario({ url: proxyUrl }, mode);
    const closed = new Promise((r) => proxy.child!.on('close', r));
    proxy.child.kill('SIGINT');
    await closed;
    await waitForSessions(cassette, 1);
  } finally {
    if (proxy.child && proxy.child.exitCode === null && proxy.child.signalCode === null) proxy.child.kill('SIGKILL');
    upstream.kill('SIGKILL');
  }
}
