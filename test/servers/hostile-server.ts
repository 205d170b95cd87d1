#!/usr/bin/env node
/**
 * A stdio server for the fuzz suite: `node hostile-server.js <seed> <index> <kind> <position> <size>`.
 * It answers the i-th line it reads with the i-th server frame of that case's script
 * (test/fuzz/frames.ts), written as exact bytes, and does not parse what it reads: a hostile or
 * unparseable request still gets its scripted answer. With FUZZ_TAP=<file> it appends every byte
 * it read there, so the run can check the proxy forwarded the client's bytes unchanged. With
 * FUZZ_ECHO_ID=1 (replay renumbers requests) a case with a hostile id answers the numeric id of
 * the line it read instead. It exits 0 at stdin EOF.
 */
import { appendFileSync } from 'node:fs';
import { kinds, positions, script, type FuzzCase, type Kind, type Position } from '../fuzz/frames.js';

const [seed, index, kind, position, size] = process.argv.slice(2);
if (!kinds.includes(kind as Kind) || !positions.includes(position as Position)) {
  process.stderr.write('usage: hostile-server <seed> <index> <kind> <position> <size>\n');
  process.exit(2);
}
const c: FuzzCase = { seed: Number(seed), index: Number(index), kind: kind as Kind, position: position as Position, size: Number(size) };
const lines = script(c);
const tap = process.env.FUZZ_TAP;
const echoId = process.env.FUZZ_ECHO_ID === '1' && c.position === 'id';
let seen = 0;
let pending: Buffer[] = [];

function answer(line: Buffer): void {
  let out = lines[seen]?.server;
  if (out && echoId && seen === 2) {
    const id = /"id":(\d+)[,}]/.exec(line.subarray(0, 200).toString('latin1'))?.[1];
    if (id) out = script(c, id)[seen]!.server;
  }
  seen += 1;
  if (out) process.stdout.write(out);
}

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
