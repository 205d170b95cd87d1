#!/usr/bin/env node
/**
 * An SDK-free stdio MCP server that answers with JSON nested far deeper than anything walks:
 * `node deep-server.js <where> [leaf]`. It answers `initialize` and `tools/list` normally; every
 * `tools/call` gets an answer with a value nested DEPTH levels deep, where `where` says:
 *   result      in the result (`content[0]` stays a normal text item; `structuredContent` is deep)
 *   error-data  an error whose `data` is deep
 *   meta        a normal result whose `_meta` is deep
 *   params      a `notifications/message` whose `params.data` is deep, then a normal result
 * A request whose id is no string or number (a deep array) gets an Invalid Request error, id null.
 * `leaf` is the string at the bottom (default "bottom"): two servers with different leaves give
 * the same shape with a different value, for replay's difference. The frames are written as
 * text (JSON.stringify cannot write them). Exits on stdin EOF.
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { pathToFileURL } from 'node:url';

export const DEPTH = 100_000;

/** `[[[…"leaf"…]]]` as text, DEPTH levels deep. */
export const deepText = (leaf = 'bottom'): string => '['.repeat(DEPTH) + JSON.stringify(leaf) + ']'.repeat(DEPTH);
const text = (s: string) => ({ content: [{ type: 'text', text: s }] });

/** The lines one request gets, as text. */
export function answer(msg: { id?: unknown; method?: string }, where = 'result', leaf = 'bottom'): string[] {
  const deep = deepText(leaf);
  // An id that is no string or number (a client's deep array) is refused as JSON-RPC says, id null.
  if (msg.id === null || typeof msg.id === 'object')
    return ['{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the id is no string or number"}}'];
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)}`;
  switch (msg.method) {
    case 'initialize':
      return [
        head +
          `,"result":${JSON.stringify({ protocolVersion: '2025-06-18', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'deep-server', version: '1.0.0' } })}}`,
      ];
    case 'tools/list':
      return [
        head +
          `,"result":${JSON.stringify({ tools: [{ name: 'deep', description: 'Answers with deeply nested JSON', inputSchema: { type: 'object' } }] })}}`,
      ];
    case 'tools/call':
      switch (where) {
        case 'error-data':
          return [head + `,"error":{"code":-32603,"message":"too deep to say","data":${deep}}}`];
        case 'meta':
          return [head + `,"result":{"content":[{"type":"text","text":"ok"}],"_meta":{"deep":${deep}}}}`];
        case 'params':
          return [
            `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${deep}}}`,
            head + `,"result":${JSON.stringify(text('ok'))}}`,
          ];
        default:
          return [head + `,"result":{"content":[{"type":"text","text":"ok"}],"structuredContent":{"deep":${deep}}}}`];
      }
    default:
      return [head + `,"result":{}}`];
  }
}

function handle(line: string, write: (line: string) => void, where: string, leaf: string): void {
  if (line.trim() === '') return;
  let msg: { id?: unknown; method?: string };
  try {
    msg = JSON.parse(line) as typeof msg;
  } catch {
    return;
  }
  // JSON.parse copes with a deep request; only the top level is read.
  if (Array.isArray(msg) || msg.id === undefined || msg.method === undefined) return;
  for (const l of answer(msg, where, leaf)) write(l);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [where = 'result', leaf = 'bottom'] = process.argv.slice(2);
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      handle(line, (l) => process.stdout.write(l + '\n'), where, leaf);
    }
  });
  process.stdin.on('end', () => process.exit(0));
}
