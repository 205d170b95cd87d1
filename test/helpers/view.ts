/** The `view` command as a user runs it (the real CLI, a real process), and the recordings its
 * tests look at. */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { type IncomingHttpHeaders, request } from 'node:http';
import type { ExecutionContext } from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { spawnTracked, waitForOutput } from './proc.js';
import { waitForFinishers } from './recording.js';
import { cli, node, root } from './paths.js';

export const defectServer = join(root, 'dist', 'test', 'servers', 'defect-server.js');

/** Starts `view <args>` and reads the URL from the first line of its stdout. */
export async function startView(t: ExecutionContext, args: string[]): Promise<{ url: URL; child: ChildProcess; firstLine: string }> {
  const child = spawnTracked(t, node, [cli, 'view', ...args]);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const text = await waitForOutput(child.stdout!, (s) => s.includes('\n')).catch((err: Error) => {
    throw new Error(`${err.message}; stderr: ${stderr}`);
  });
  const firstLine = text.split('\n')[0]!;
  return { url: new URL(firstLine), child, firstLine };
}

/** The Content-Security-Policy of every response of the view (`view` and `record --ui`). */
export const VIEW_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A GET with the headers given (Host included), as a browser of another site would send. */
export function rawGet(
  url: URL,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Records a session with a spec violation: the official v1 SDK client drives the real `record`
 * CLI in front of defect-server.ts, whose `fail` tool fails as a JSON-RPC error (TOOLS-ERR-EXECUTION,
 * a warning at /error of the answer). The live validator stores the violation in the cassette.
 */
/** The official v1 SDK's stdio transport, its server command the real `record` CLI (options
 * `extra`) in front of `server`. */
export function recordingTransport(cassette: string, extra: string[], server: string[], stderr: 'pipe' | 'ignore'): StdioClientTransport {
  return new StdioClientTransport({
    command: node,
    args: [cli, 'record', '--cassette', cassette, ...extra, '--', node, ...server],
    stderr,
  });
}

export async function recordDefectCassette(cassette: string): Promise<void> {
  const transport = recordingTransport(
    cassette,
    ['--log-level', 'error'],
    [defectServer, 'stdio', '--defect', 'failure-as-error'],
    'ignore',
  );
  const client = new Client({ name: 'view-test-client', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: 'lookup', arguments: { what: 'apples' } }).catch(() => undefined);
  await client.callTool({ name: 'fail', arguments: {} }).catch(() => undefined);
  await endStdio(transport);
  await client.close();
  // The recorder exits with its server; a finisher may write the cassette just after.
  waitForFinishers(cassette);
}

/** Ends the recorder's stdin (the host is done) and waits for it to exit (the SDK's own close
 * would SIGTERM it after 2 s); its cassette may be written by its finisher just after. */
export async function endStdio(transport: StdioClientTransport): Promise<void> {
  const proc = (transport as unknown as { _process?: ChildProcess })._process;
  if (proc && proc.exitCode === null) {
    const closed = once(proc, 'close');
    proc.stdin?.end();
    await closed;
  }
}

/** How `record --ui` says where its live view is, on stderr. */
export const LIVE_URL = /mcp-cassette: live view at (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/;

/** `record --upstream <upstream> --ui 127.0.0.1:0` into `cassette` (`extra`: more options): the
 * recorder, its live view's URL (with the token) and the proxy's MCP URL, once both are printed. */
export async function recordHttpWithUi(
  t: ExecutionContext,
  upstream: string,
  cassette: string,
  extra: string[] = [],
): Promise<{ recorder: ChildProcess; view: string; proxy: string }> {
  const recorder = spawnTracked(t, node, [
    cli,
    'record',
    '--upstream',
    upstream,
    '--cassette',
    cassette,
    '--log-level',
    'warn',
    '--ui',
    '127.0.0.1:0',
    ...extra,
  ]);
  const [err, out] = await Promise.all([
    waitForOutput(recorder.stderr!, (s) => LIVE_URL.test(s)),
    waitForOutput(recorder.stdout!, (s) => s.includes('\n')),
  ]);
  return { recorder, view: LIVE_URL.exec(err)![1]!, proxy: out.split('\n')[0]!.trim() };
}
