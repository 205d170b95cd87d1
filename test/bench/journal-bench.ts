#!/usr/bin/env node
/**
 * What journaling costs the proxy, alone, with a real JournalWriter:
 * - stdio: 100,000 one-line `tools/call` chunks, each written with its own synchronous write (as
 *   the recorder does before it forwards a chunk), with the default capture filter (secrets
 *   masked before disk) and without any filter. Set next to the stdio pipe floor's CPU per call
 *   (two chunks), this is the part of recording that no tuning of ours removes: one write system
 *   call per forwarded chunk.
 * - HTTP: 30,000 `tools/call` exchanges as the HTTP recorder journals them (request event with
 *   its headers, body, response event, body, end), with the default capture filter.
 * Reports the process's CPU time per chunk or exchange, the median of `rounds`.
 *
 *   node dist/test/bench/journal-bench.js [rounds=5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JournalWriter } from '../../lib/cassette/journal.js';
import { NO_METRICS } from '../../lib/metrics.js';
import { CaptureFilter } from '../../recorder/capture/journal-filter.js';

const rounds = Number(process.argv[2] ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'mcpc-journal-bench-'));
const lines = Array.from({ length: 1000 }, (_, i) =>
  Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"echo","arguments":{"n":${i}}}}\n`),
);

function round(filtered: boolean, n: number): number {
  const journal = new JournalWriter(
    join(dir, `j-${n}-${filtered}`),
    {
      format: 'mcp-cassette-journal',
      version: 1,
      sessionId: `b${n}`,
      startedAt: new Date().toISOString(),
      pid: process.pid,
      hostname: 'bench',
      session: {},
    },
    performance.now(),
  );
  if (filtered)
    journal.filter = new CaptureFilter({ level: 'full', redaction: { paths: [], values: [], secrets: true } }, NO_METRICS, 'stdio');
  const pass = (times: number) => {
    for (let r = 0; r < times; r++) for (const line of lines) journal.chunk('stdin', line);
  };
  pass(20); // warm-up
  const before = process.cpuUsage();
  pass(100);
  const spent = process.cpuUsage(before);
  journal.close();
  return (spent.user + spent.system) / (100 * lines.length);
}

const REQUEST_HEADERS = {
  host: '127.0.0.1:2',
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
  'user-agent': 'autocannon',
  connection: 'keep-alive',
  'content-length': '90',
};
const REQUEST = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"n":1}}}');
const RESPONSE = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"1"}]}}');

function httpRound(n: number): number {
  const journal = new JournalWriter(
    join(dir, `h-${n}`),
    {
      format: 'mcp-cassette-journal',
      version: 1,
      sessionId: `h${n}`,
      startedAt: new Date().toISOString(),
      pid: process.pid,
      hostname: 'bench',
      session: {},
    },
    performance.now(),
  );
  journal.filter = new CaptureFilter({ level: 'full', redaction: { paths: [], values: [], secrets: true } }, NO_METRICS, 'http');
  let x = 0;
  const exchanges = (count: number) => {
    for (let i = 0; i < count; i++) {
      x++;
      // As recorder/http-recorder.ts journals one exchange: the request held until its body is in.
      journal.event('http-request', { x, method: 'POST', path: '/mcp', headers: REQUEST_HEADERS, mcp: true }, true);
      journal.chunk('http-request', REQUEST, x, true);
      journal.event('http-request-end', { x });
      // The response's records are held too, and written in one go once it is forwarded.
      const headers = { 'content-type': 'application/json', date: 'Wed, 02 Dec 2026 06:00:00 GMT' };
      journal.event('http-response', { x, status: 200, headers }, true);
      journal.chunk('http-response', RESPONSE, x, true);
      journal.event('http-end', { x, outcome: 'complete' }, true);
      journal.flush();
    }
  };
  exchanges(5000); // warm-up
  const before = process.cpuUsage();
  exchanges(30_000);
  const spent = process.cpuUsage(before);
  journal.close();
  return (spent.user + spent.system) / 30_000;
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const plain: number[] = [];
const filtered: number[] = [];
const http: number[] = [];
for (let n = 0; n < rounds; n++) {
  plain.push(round(false, n));
  filtered.push(round(true, n));
  http.push(httpRound(n));
}
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `stdio, one write per chunk, median of ${rounds}: ${median(plain).toFixed(2)} µs of CPU per chunk without a filter, ${median(filtered).toFixed(2)} µs with the default capture filter (secrets masked)\n` +
    `HTTP, median of ${rounds}: ${median(http).toFixed(2)} µs of CPU per tools/call exchange journaled, with the default capture filter\n`,
);
