#!/usr/bin/env node
/**
 * A hand-rolled MCP server with seeded defects, for the proof of `mcp-cassette fuzz` (issue 34):
 * seven tools, each correct but for one defect that one class of argument value sets off:
 *   1 echo.text with U+202E: an uncaught RangeError, exit code 3
 *   2 parity.n past 2^53 - 1 (9007199254740993): that call is never answered
 *   3 convert_temperature.to, a string outside its enum: -32603 "Internal error" (validate:
 *     TOOLS-ERR-EXECUTION, a warning)
 *   4 inspect_json.document nested deeper than 64: a Go `panic: runtime error` on stderr
 *   5 greet.name empty: a plain log line on stdout, stdio only (validate: STDIO-STDOUT-CLEAN)
 *   6 word_count.text over 64 KiB: a result without `content` (validate: TOOLS-CALL-SHAPE)
 *   7 delete_everything, the one tool without readOnlyHint: any call, an uncaught Error, exit 4
 * DEFECTS in fuzz-target-tools.ts says each exactly; the protocol (both eras, no SDK in the way)
 * is fuzz-target-protocol.ts.
 *   node fuzz-target.js [--http] [--fixed] [--fix <n|name|tool>]...
 * stdio by default; `--http`: Streamable HTTP on 127.0.0.1, port 0 (or `--port N`), its URL (path /mcp) on the
 * first stdout line. `--fixed`: defects 1-6 fixed (the trap, 7, stays armed); `--fix`: one more
 * defect fixed, repeatable. A fixed defect's input gets an isError result or a proper result.
 * Over HTTP a 2025 `initialize` opens a session (Mcp-Session-Id, numbered, so a replay compares
 * clean); a 2026-07-28 request is served statelessly, as JSON.
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { carriesModernMeta, error, handle, type Answer, type Peer } from './fuzz-target-protocol.js';
import { fixesOf, installCrashExit, type Fixes, type ToolIo } from './fuzz-target-tools.js';
import { readJsonBody, serveStdioLines } from './raw-io.js';

/** The Origins a local server accepts (HTTP-ORIGIN): its own loopback ones. */
const LOCAL_ORIGIN = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;

function serveStdio(fixes: Fixes): void {
  const peer: Peer = {};
  const io: ToolIo = { stdio: true, stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };
  serveStdioLines((msg) => handle(msg, { peer, fixes, io })?.body);
  // stdio.mdx §Shutdown: stdin closed, the server exits (a hung call does not hold it).
  process.stdin.on('end', () => process.exit(0));
}

function serveHttp(fixes: Fixes, port: number): void {
  const sessions = new Map<string, Peer>();
  let minted = 0;
  const io: ToolIo = { stdio: false, stdout: () => {}, stderr: (t) => process.stderr.write(t) };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const send = (a: Answer, extra: Record<string, string> = {}): void => {
      res.writeHead(a.status, { ...(a.body ? { 'content-type': 'application/json' } : {}), ...extra });
      res.end(a.body ? JSON.stringify(a.body) : undefined);
    };
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return send({ status: 404 });
    const origin = req.headers.origin;
    if (origin !== undefined && !LOCAL_ORIGIN.test(origin)) return send({ status: 403 });
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'DELETE' && typeof sid === 'string') return send({ status: sessions.delete(sid) ? 200 : 404 });
    if (req.method !== 'POST') return send({ status: 405 }, { allow: 'POST, DELETE' });
    readJsonBody(
      req,
      (msg) => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
        let peer: Peer = {};
        if (typeof sid === 'string' && !carriesModernMeta(msg)) {
          const known = sessions.get(sid);
          if (!known) return send(error((msg as { id?: unknown } | null)?.id, -32600, 'Invalid Request: no such session', 404));
          peer = known;
        }
        const opening = peer.legacy === undefined && typeof sid !== 'string';
        const a = handle(msg, { peer, fixes, io, headers });
        if (!a) return send({ status: 202 });
        if (a.hang) return; // never answered: the response stays open
        if (opening && peer.legacy !== undefined) {
          const id = `fuzz-target-session-${++minted}`;
          sessions.set(id, peer);
          return send(a, { 'mcp-session-id': id });
        }
        send(a);
      },
      () => send(error(null, -32700, 'Parse error', 400)),
    );
  });
  server.listen(port, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`));
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => process.exit(0));
}

/** `--fix <n|name|tool>` values, in order. */
function fixArgs(argv: string[]): string[] {
  const out: string[] = [];
  argv.forEach((a, i) => {
    if (a === '--fix') out.push(argv[i + 1] ?? '');
  });
  return out;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const argv = process.argv.slice(2);
  const fixes = fixesOf(argv.includes('--fixed'), fixArgs(argv));
  installCrashExit();
  // `--port N`: a fixed port, so that a fuzzer that restarts the server finds it at the same URL.
  const port = argv.includes('--port') ? Number(argv[argv.indexOf('--port') + 1]) : 0;
  if (argv.includes('--http')) serveHttp(fixes, port);
  else serveStdio(fixes);
}
