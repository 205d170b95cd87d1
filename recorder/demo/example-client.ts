/**
 * A scripted session with the official v2 SDK client: the traffic `npm start` records, and the
 * client side of the end-to-end tests. Every step's result is returned so a caller can compare a
 * direct run with a run through the proxy.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export type NegotiationMode = 'legacy' | 'auto' | 'pin';

export interface ScenarioResult {
  era: string | undefined;
  protocolVersion: string | undefined;
  steps: Record<string, unknown>;
}

export type ExampleTarget =
  | { command: string; args: string[]; env?: Record<string, string>; cwd?: string }
  | { url: string; fetch?: typeof fetch };

export async function runExampleScenario(server: ExampleTarget, mode: NegotiationMode): Promise<ScenarioResult> {
  const client = new Client(
    { name: 'mcp-cassette-example-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: mode === 'pin' ? { pin: '2026-07-28' } : mode } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ok: true } }));
  let transport: Transport;
  if ('url' in server) {
    transport = new StreamableHTTPClientTransport(new URL(server.url), server.fetch ? { fetch: server.fetch } : {});
  } else {
    const stdio = new StdioClientTransport({
      command: server.command,
      args: server.args,
      stderr: 'pipe',
      ...(server.env ? { env: server.env } : {}),
      ...(server.cwd ? { cwd: server.cwd } : {}),
    });
    // Drain stderr so a chatty server can never block on a full pipe.
    stdio.stderr?.on('data', () => {});
    transport = stdio;
  }
  await client.connect(transport);
  try {
    const steps: Record<string, unknown> = {};
    steps.listTools = await client.listTools();
    steps.add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    steps.confirm = await client.callTool({ name: 'confirm_action', arguments: { action: 'deploy' } });
    steps.readResource = await client.readResource({ uri: 'example://readme' });
    steps.getPrompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    // An onprogress callback makes the client send a progress token. How many progress
    // notifications the SDK client hands to it before the result settles the call depends on
    // chunk timing, so they are not part of the returned steps; the wire (the cassette) has them all.
    steps.countSlowly = await client.callTool({ name: 'count_slowly', arguments: { n: 3 } }, { onprogress: () => {} });
    return { era: client.getProtocolEra(), protocolVersion: client.getNegotiatedProtocolVersion(), steps };
  } finally {
    await client.close();
  }
}
