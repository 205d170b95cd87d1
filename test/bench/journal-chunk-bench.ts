#!/usr/bin/env node
/**
 * What journaling one stdio chunk costs the proxy, alone: a real JournalWriter appending
 * 100,000 one-line `tools/call` chunks (each written with its own synchronous write, as the
 * recorder does before it forwards a chunk), with the default capture filter (secrets masked
 * before disk) and without any filter. Reports the process's CPU time per chunk, the median of
 * `rounds`. Set next to the stdio pipe floor's CPU per call (two chunks), this is the part of
 * recording that no tuning of ours removes: one write system call per forwarded chunk.
 *
 *   node dist/test/bench/journal-chunk-bench.js [rounds=5]
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

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const plain: number[] = [];
const filtered: number[] = [];
for (let n = 0; n < rounds; n++) {
  plain.push(round(false, n));
  filtered.push(round(true, n));
}
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `journal, one write per chunk, median of ${rounds}: ${median(plain).toFixed(2)} µs of CPU per chunk without a filter, ${median(filtered).toFixed(2)} µs with the default capture filter (secrets masked)\n`,
);
