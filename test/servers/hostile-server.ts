#!/usr/bin/env node
/**
 * A stdio server for the fuzz suite: `node hostile-server.js <seed> <index> <kind> <position> <size>` (position `every`: one
 * hostile pair per position; kind `valid-json`: one pair per valid-JSON kind).
 * It answers the i-th line it reads with the i-th server frame of that case's script
 * (test/fuzz/frames.ts), written as exact bytes, and does not parse what it reads: a hostile or
 * unparseable request still gets its scripted answer. With FUZZ_TAP=<file> it appends every byte
 * it read there, so the run can check the proxy forwarded the client's bytes unchanged. With
 * FUZZ_ECHO_ID=1 (for replay, which renumbers requests and may split or skip them) it picks the
 * scripted answer by the request's method and answers the id (a number or a plain string) it was sent. It exits 0 at stdin EOF.
 * With FUZZ_HTTP=json or sse it serves Streamable HTTP on 127.0.0.1 instead (its URL is the first
 * line on stdout): the i-th POST body counts as the i-th line, a scripted answer goes back as the
 * JSON body or as one SSE event's data, a notification gets 202. It runs until killed.
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { kinds, positions, script, type CaseKind, type FuzzCase, type Kind, type Position } from '../fuzz/frames.js';

const [seed, index, kind, position, size] = process.argv.slice(2);
if (
  !(kind === 'valid-json' || kinds.includes(kind as Kind)) ||
  !(position === 'every' || positions.includes(position as (typeof positions)[number]))
) {
  process.stderr.write('usage: hostile-server <seed> <index> <kind> <position> <size>\n');
  process.exit(2);
}
const c: FuzzCase = {
  seed: Number(seed),
  index: Number(index),
  kind: kind as CaseKind,
  position: position as Position,
  size: Number(size),
  transport: process.env.FUZZ_HTTP === 'json' || process.env.FUZZ_HTTP === 'sse' ? process.env.FUZZ_HTTP : 'stdio',
};
const lines = script(c);
const tap = process.env.FUZZ_TAP;
const echoId = process.env.FUZZ_ECHO_ID === '1';
let seen = 0;
let pending: Buffer[] = [];

function answer(line: Buffer): void {
  const out = nextAnswer(line);
  if (out) process.stdout.write(out);
}

/** Replay mode: the script line is chosen by the request's method and answered with its id. */
const byMethod: [string, number][] = [
  ['"initialize"', 0],
  ['"notifications/', 1],
  ['"tools/call"', 2],
  ['"tools/list"', 3],
];

function nextAnswer(line: Buffer): Buffer | undefined {
  if (!echoId) return lines[seen++]?.server;
  const head = line.subarray(0, 300).toString('latin1');
  const index = byMethod.find(([m]) => head.includes(m))?.[1];
  // Replay numbers its requests, probe names them ("mcp-cassette-probe-1"): either is echoed.
  const id = /"id":(\d+|"[\w.:-]*")[,}]/.exec(head)?.[1];
  if (index === undefined) {
    // Another request (probe's unknown method) gets what a server says to that; an answer is no request.
    if (!id || !/"method":/.test(head)) return undefined;
    return Buffer.from(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}\n`);
  }
  return id ? script(c, id)[index]!.server : lines[index]!.server;
}

const http = process.env.FUZZ_HTTP;
if (http === 'json' || http === 'sse') {
  const server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (chunk: Buffer) => body.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const line = Buffer.concat(body);
      if (tap) appendFileSync(tap, line);
      const out = nextAnswer(line);
      if (!out) res.writeHead(202).end();
      else if (http === 'json') res.writeHead(200, { 'content-type': 'application/json' }).end(out);
      // One SSE event; the frame's own newline ends the data line.
      else
        res
          .writeHead(200, { 'content-type': 'text/event-stream' })
          .end(Buffer.concat([Buffer.from('event: message\ndata: '), out, Buffer.from('\n')]));
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') process.stdout.write(`http://127.0.0.1:${String(address.port)}/mcp\n`);
  });
} else
  process.stdin.on('data', (chunk: Buffer) => {
    if (tap) appendFileSync(tap, chunk);
    let from = 0;
    let at = chunk.indexOf(0x0a);
    while (at !== -1) {
      pending.push(chunk.subarray(from, at));
      answer(Buffer.concat(pending));
      pending = [];
      from = at + 1;
      at = chunk.indexOf(0x0a, from);
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
  });
process.stdin.on('end', () => {
  process.exitCode = 0;
});
