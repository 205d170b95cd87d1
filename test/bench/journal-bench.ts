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
import { summary } from './stats.js';

const rounds = Number(process.argv[2] ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'mcpc-journal-bench-'));
const lines = Array.from({ length: 1000 }, (_, i) =>
  Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"echo","arguments":{"n":${i}}}}\n`),
);

/** A journal with the recorder's default capture filter (secrets masked before disk), or none. */
function openJournal(name: string, filter: 'stdio' | 'http' | undefined): JournalWriter {
  const header = {
    format: 'mcp-cassette-journal' as const,
    version: 1,
    sessionId: name,
    startedAt: new Date().toISOString(),
    pid: process.pid,
    hostname: 'bench',
    session: {},
  };
  const journal = new JournalWriter(join(dir, name), header, performance.now());
  if (filter)
    journal.filter = new CaptureFilter({ level: 'full', redaction: { paths: [], values: [], secrets: true } }, NO_METRICS, filter);
  return journal;
}

/** CPU time (µs) per unit of `work(count)`, after a warm-up of `warmup` units; closes the journal. */
function cpuPer(journal: JournalWriter, work: (count: number) => void, warmup: number, count: number): number {
  work(warmup);
  const before = process.cpuUsage();
  work(count);
  const spent = process.cpuUsage(before);
  journal.close();
  return (spent.user + spent.system) / count;
}

function stdioRound(filtered: boolean, n: number): number {
  const journal = openJournal(`stdio-${n}-${filtered}`, filtered ? 'stdio' : undefined);
  let i = 0;
  return cpuPer(
    journal,
    (count) => {
      for (let k = 0; k < count; k++) journal.chunk('stdin', lines[i++ % lines.length]!);
    },
    20_000,
    100_000,
  );
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
  const journal = openJournal(`http-${n}`, 'http');
  let x = 0;
  return cpuPer(
    journal,
    (count) => {
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
    },
    5000,
    30_000,
  );
}

const median = (xs: number[]): number => summary(xs).median;
const plain: number[] = [];
const filtered: number[] = [];
const http: number[] = [];
for (let n = 0; n < rounds; n++) {
  plain.push(stdioRound(false, n));
  filtered.push(stdioRound(true, n));
  http.push(httpRound(n));
}
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `stdio, one write per chunk, median of ${rounds}: ${median(plain).toFixed(2)} µs of CPU per chunk without a filter, ${median(filtered).toFixed(2)} µs with the default capture filter (secrets masked)\n` +
    `HTTP, median of ${rounds}: ${median(http).toFixed(2)} µs of CPU per tools/call exchange journaled, with the default capture filter\n`,
);
