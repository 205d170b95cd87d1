import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { node } from './paths.js';
import { recordArgs, waitForSessions } from './recording.js';
import { tempDir } from './tmp.js';

/**
 * A v1 SDK client transport whose `initialize` offers an older revision, as an older client
 * would send it (the SDK always offers its latest): everything else is the real client.
 */
class OfferingTransport extends StdioClientTransport {
  constructor(
    params: ConstructorParameters<typeof StdioClientTransport>[0],
    private readonly offer: string,
  ) {
    super(params);
  }

  override send(message: JSONRPCMessage): Promise<void> {
    const m = message as { method?: string; params?: Record<string, unknown> };
    if (m.method === 'initialize') message = { ...message, params: { ...m.params, protocolVersion: this.offer } } as JSONRPCMessage;
    return super.send(message);
  }
}

/**
 * Records one v1 SDK client session with a real stdio server through the proxy (`record`), the
 * client running `steps`, and returns the cassette once the proxy wrote it. `offer`: the revision
 * the client's `initialize` offers instead of the SDK's latest; `env`: extra environment for the
 * server, given the test's folder; `extra`: more `record` options.
 */
export async function recordSdkSession(
  t: ExecutionContext,
  server: string[],
  steps: (c: Client) => Promise<void>,
  options: { offer?: string; env?: (dir: string) => Record<string, string>; extra?: string[] } = {},
): Promise<{ dir: string; cassette: Cassette }> {
  const dir = tempDir(t);
  const path = join(dir, 'real.cassette.json');
  const client = new Client({ name: 'mcp-cassette-real-traffic', version: '1.0.0' }, { capabilities: {} });
  const params = {
    command: node,
    args: recordArgs(path, server, options.extra),
    stderr: 'pipe' as const,
    cwd: dir,
    env: { ...(process.env as Record<string, string>), ...options.env?.(dir) },
  };
  const transport = options.offer ? new OfferingTransport(params, options.offer) : new StdioClientTransport(params);
  transport.stderr?.on('data', () => {});
  await client.connect(transport);
  try {
    await steps(client);
  } finally {
    await client.close();
  }
  return { dir, cassette: await waitForSessions(path, 1) };
}
