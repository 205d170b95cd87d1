/**
 * Records cassettes of test/servers/replay-target.ts through the real proxy with the official v2
 * SDK client, in both eras, so the replay tests start from genuine traffic.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { join } from 'node:path';
import { cli, node, root } from '../helpers/paths.js';
import { waitForSessions } from '../helpers/recording.js';

export const replayTarget = join(root, 'dist', 'test', 'servers', 'replay-target.js');

export async function runTargetScenario(command: string, args: string[], mode: 'legacy' | 'pin'): Promise<void> {
  const client = new Client(
    { name: 'replay-test-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: mode === 'pin' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ok: true } }));
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  transport.stderr?.on('data', () => {});
  await client.connect(transport);
  try {
    await client.listTools();
    await client.callTool({ name: 'search', arguments: { query: 'cats', mode: 'deep' } });
    await client.callTool({ name: 'stamp', arguments: {} });
    await client.callTool({ name: 'confirm_action', arguments: { action: 'deploy' } });
    await client.readResource({ uri: 'example://readme' });
    await client.readResource({ uri: 'example://locked' }).catch(() => undefined);
    await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  } finally {
    await client.close();
  }
}

/** Records one session per era of the plain replay target into `cassette`. */
export async function recordTargetCassette(cassette: string): Promise<void> {
  let sessions = 0;
  for (const mode of ['legacy', 'pin'] as const) {
    await runTargetScenario(node, [cli, 'record', '--log-level', 'warn', '--cassette', cassette, '--', node, replayTarget], mode);
    sessions = (await waitForSessions(cassette, sessions + 1)).sessions.length;
  }
}
