/** The v1 SDK client over Streamable HTTP: answers elicitation, calls tools, ends the session. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export async function runV1HttpScenario(
  url: string,
  steps: (client: Client) => Promise<Record<string, unknown>>,
  fetchImpl?: typeof fetch,
): Promise<Record<string, unknown>> {
  const client = new Client({ name: 'mcp-cassette-v1-http-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { ok: true } }));
  const transport = new StreamableHTTPClientTransport(new URL(url), fetchImpl ? { fetch: fetchImpl } : {});
  await client.connect(transport);
  try {
    return { server: client.getServerVersion(), ...(await steps(client)) };
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}
