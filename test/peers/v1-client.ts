/** A scripted session with the legacy v1 SDK client (`@modelcontextprotocol/sdk`, 2025 era). */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export async function runV1EverythingScenario(command: string, args: string[]): Promise<Record<string, unknown>> {
  const client = new Client({ name: 'mcp-cassette-v1-test', version: '1.0.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  transport.stderr?.on('data', () => {});
  await client.connect(transport);
  try {
    return {
      protocolVersion: (transport as unknown as { _protocolVersion?: string })._protocolVersion,
      server: client.getServerVersion(),
      tools: (await client.listTools()).tools.map((t) => t.name).sort(),
      sum: await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }),
      prompts: (await client.listPrompts()).prompts.map((p) => p.name).sort(),
      resource: await client.readResource({ uri: 'demo://resource/static/document/architecture.md' }),
    };
  } finally {
    await client.close();
  }
}
