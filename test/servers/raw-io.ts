/**
 * Reading JSON-RPC in the hand-rolled test servers, without an SDK: newline-delimited on stdio,
 * whole bodies over HTTP.
 */

/** stdio: answers a line that is not JSON with a parse error, and writes what `answer` returns for each
 * message (nothing for a notification).
 */
export function serveStdioLines(answer: (msg: unknown) => Record<string, unknown> | undefined): void {
  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line.trim()) continue;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }) + '\n');
        continue;
      }
      const body = answer(msg);
      if (body) process.stdout.write(JSON.stringify(body) + '\n');
    }
  });
}

/** Reads an HTTP request body as JSON: `onMessage` gets the value, `onParseError` is called when
 * the body is not JSON. */
export function readJsonBody(req: import('node:http').IncomingMessage, onMessage: (msg: unknown) => void, onParseError: () => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let msg: unknown;
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return onParseError();
    }
    onMessage(msg);
  });
}
