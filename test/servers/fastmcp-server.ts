/**
 * A FastMCP-TS server over stdio (run with the Node 22 of the Node 22 peers): the framework
 * firecrawl-mcp 3.26.0 is built on (fastmcp 4.3.2, loaded from where npm put it for firecrawl-mcp
 * in test/peers/node22), with one prompt and one resource template whose arguments complete.
 * FastMCP answers a completion for a prompt or template it does not have with -32603 ("Unknown
 * prompt", "Unknown resource"), as firecrawl-mcp does.
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { createRequire } from 'node:module';
import { node22Peer } from '../helpers/paths.js';

type Complete = (value: string) => Promise<{ values: string[] }>;
interface FastMcp {
  addPrompt(prompt: {
    name: string;
    description: string;
    arguments: { name: string; description: string; required: boolean; complete: Complete }[];
    load: (args: Record<string, string>) => Promise<string>;
  }): void;
  addResourceTemplate(template: {
    uriTemplate: string;
    name: string;
    mimeType: string;
    arguments: { name: string; required: boolean; complete: Complete }[];
    load: (args: Record<string, string>) => Promise<{ text: string }>;
  }): void;
  start(options: { transportType: 'stdio' }): Promise<void>;
}

const fromFirecrawl = createRequire(node22Peer('node_modules', 'firecrawl-mcp', 'package.json'));
const { FastMCP } = fromFirecrawl('fastmcp') as { FastMCP: new (options: { name: string; version: string }) => FastMcp };

const names: Complete = async (value) => ({ values: ['Ada', 'Alan', 'Grace'].filter((n) => n.startsWith(value)) });
const server = new FastMCP({ name: 'fastmcp-completion', version: '1.0.0' });
server.addPrompt({
  name: 'greet',
  description: 'Greets someone',
  arguments: [{ name: 'who', description: 'Who to greet', required: true, complete: names }],
  load: async ({ who }) => `Say hello to ${who}`,
});
server.addResourceTemplate({
  uriTemplate: 'greeting://{who}',
  name: 'Greeting',
  mimeType: 'text/plain',
  arguments: [{ name: 'who', required: true, complete: names }],
  load: async ({ who }) => ({ text: `Hello, ${who}` }),
});
await server.start({ transportType: 'stdio' });
