#!/usr/bin/env node
/**
 * An SDK-free stdio server for fault tests: `node raw-server.js <mode>`. It answers every JSON-RPC
 * request with `{"echo": <params>}` unless the mode says otherwise, and exits on stdin EOF unless
 * told to ignore it. Methods with special meaning:
 *   crash            write a progress notification, then exit 3 without answering
 *   big {mb}         answer with a result line of about `mb` megabytes
 *   noise            write a non-JSON line, invalid UTF-8, a CRLF-terminated JSON line and a
 *                    JSON line in 1-byte writes, then answer
 *   env              answer with argv, cwd and MCP_TEST_* environment variables
 *   slow {ms}        answer after `ms` milliseconds
 * Modes: echo (default), ignore-eof (stay alive after EOF; SIGTERM ends it), ignore-term (ignore
 * EOF and SIGTERM; only SIGKILL ends it), trailing (at EOF, write bytes without a newline, exit 0).
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { createHash } from 'node:crypto';

const mode = process.argv[2] ?? 'echo';
let pending = 0;
let eof = false;
let buffer = '';

function send(line: string | Buffer): void {
  process.stdout.write(line);
}

function answer(id: unknown, result: unknown): void {
  send(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');
  pending -= 1;
  maybeExit();
}

function maybeExit(): void {
  if (eof && pending === 0 && (mode === 'echo' || mode === 'trailing')) {
    if (mode === 'trailing') send('{"partial":');
    process.exitCode = 0;
    process.stdin.destroy();
  }
}

async function handle(msg: { id?: unknown; method?: string; params?: Record<string, unknown> }): Promise<void> {
  if (msg.id === undefined) return;
  pending += 1;
  switch (msg.method) {
    case 'crash':
      send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 0.5 } }) + '\n');
      setTimeout(() => process.exit(3), 20);
      return;
    case 'big': {
      const mb = Number(msg.params?.mb ?? 50);
      answer(msg.id, { text: 'x'.repeat(Math.round(mb * 1024 * 1024)) });
      return;
    }
    case 'noise':
      send('server starting up (not JSON)\n');
      send(Buffer.from([0xff, 0xfe, 0x41, 0xc3, 0x28, 0x0a]));
      send('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"crlf"}}\r\n');
      for (const ch of Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"split"}}\n')) {
        send(Buffer.from([ch]));
        await new Promise((r) => setTimeout(r, 1));
      }
      answer(msg.id, { noise: true });
      return;
    case 'env':
      answer(msg.id, {
        argv: process.argv.slice(2),
        cwd: process.cwd(),
        env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('MCP_TEST_'))),
      });
      return;
    case 'slow':
      setTimeout(() => answer(msg.id, { slow: true }), Number(msg.params?.ms ?? 200));
      return;
    case 'size':
      answer(msg.id, {
        bytes: Buffer.byteLength(JSON.stringify(msg.params)),
        sha256: createHash('sha256').update(JSON.stringify(msg.params)).digest('hex'),
      });
      return;
    default:
      answer(msg.id, { echo: msg.params ?? null });
  }
}

process.stdin.on('data', (chunk: Buffer) => {
  buffer += chunk.toString('utf8');
  let nl = buffer.indexOf('\n');
  while (nl !== -1) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    nl = buffer.indexOf('\n');
    try {
      void handle(JSON.parse(line) as Parameters<typeof handle>[0]);
    } catch {
      process.stderr.write(`raw-server: not JSON: ${line.slice(0, 80)}\n`);
    }
  }
});
/** A signal's arrival: after stdin closed or not, and when (the epoch clock, which the test shares). */
const signalled = (): string => `${eof ? 'after' : 'before'} stdin closed, at ${Date.now()}`;
process.stdin.on('end', () => {
  eof = true;
  process.stderr.write('raw-server: stdin closed\n');
  maybeExit();
});
if (mode === 'ignore-eof' || mode === 'ignore-term') setInterval(() => {}, 1000);
if (mode === 'ignore-term') process.on('SIGTERM', () => process.stderr.write(`raw-server: ignoring SIGTERM (${signalled()})\n`));
if (mode === 'ignore-eof') {
  process.on('SIGTERM', () => {
    process.stderr.write(`raw-server: SIGTERM (${signalled()})\n`); // synchronous on a pipe
    process.removeAllListeners('SIGTERM');
    process.kill(process.pid, 'SIGTERM'); // and end by it, as without a handler
  });
}
process.on('SIGINT', () => {
  process.stderr.write('raw-server: got SIGINT\n');
  process.exit(130);
});
