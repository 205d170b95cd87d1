/**
 * A scripted session with the official v2 SDK client: the traffic `npm start` records, and the
 * client side of the end-to-end tests. Every step's result is returned so a caller can compare a
 * direct run with a run through the proxy.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export type NegotiationMode = 'legacy' | 'auto' | 'pin';

export interface ScenarioResult {
  era: string | undefined;
  protocolVersion: string | undefined;
  steps: Record<string, unknown>;
}

export async function runExampleScenario(
  server: { command: string; args: string[]; env?: Record<string, string>; cwd?: string },
  mode: NegotiationMode,
): Promise<ScenarioResult> {
  const client = new Client(
    { name: 'mcp-cassette-example-client', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: mode === 'pin' ? { pin: '2026-07-28' } : mode },
    },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ok: true } }));
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    stderr: 'pipe',
    ...(server.env ? { env: server.env } : {}),
    ...(server.cwd ? { cwd: server.cwd } : {}),
  });
  // Drain stderr so a chatty server can never block on a full pipe.
  transport.stderr?.on('data', () => {});
  await client.connect(transport);
  try {
    const steps: Record<string, unknown> = {};
    steps.listTools = await client.listTools();
    steps.add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    steps.confirm = await client.callTool({ name: 'confirm_action', arguments: { action: 'deploy' } });
    steps.readResource = await client.readResource({ uri: 'example://readme' });
    steps.getPrompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    return { era: client.getProtocolEra(), protocolVersion: client.getNegotiatedProtocolVersion(), steps };
  } finally {
    await client.close();
  }
}
