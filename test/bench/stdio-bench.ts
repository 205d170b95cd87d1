/**
 * stdio benchmarks: cold start (spawn → first answer) and sequential round trips, each for the
 * direct connection, the pipe floor and `mcp-cassette record`, alternating the variants in one
 * run so that machine noise hits all of them alike.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, node, rawServer, root } from '../helpers/paths.js';
import { summary } from './stats.js';

const floor = join(root, 'dist', 'test', 'bench', 'pipe-floor.js');

export type Variant = 'direct' | 'pipe floor' | 'mcp-cassette record' | 'record --no-validate';
export const VARIANTS: Variant[] = ['direct', 'pipe floor', 'mcp-cassette record', 'record --no-validate'];

function argvFor(variant: Variant, cassette: string): string[] {
  const server = [rawServer, 'echo'];
  if (variant === 'direct') return server;
  if (variant === 'pipe floor') return [floor, node, ...server];
  const validate = variant === 'record --no-validate' ? ['--no-validate'] : [];
  return [cli, 'record', '--log-level', 'silent', ...validate, '--cassette', cassette, '--', node, ...server];
}

function start(variant: Variant, cassette: string): ChildProcess {
  return spawn(node, argvFor(variant, cassette), { stdio: ['pipe', 'pipe', 'ignore'] });
}

/** Resolves with a function that sends one request and waits for its answer. */
function requester(child: ChildProcess): (id: number) => Promise<void> {
  let buffered = '';
  let waiting: { id: number; resolve: () => void } | undefined;
  child.stdout!.on('data', (c: Buffer) => {
    buffered += c.toString('utf8');
    if (waiting && buffered.includes(`"id":${waiting.id},`)) {
      buffered = '';
      const w = waiting;
      waiting = undefined;
      w.resolve();
    }
  });
  return (id: number) => new Promise<void>((resolve) => {
    waiting = { id, resolve };
    child.stdin!.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"n":${id}}}}\n`);
  });
}

function ended(child: ChildProcess): Promise<void> {
  return new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.on('close', () => r())));
}

export async function coldStart(rounds: number): Promise<Record<Variant, number[]>> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-bench-'));
  const out: Record<Variant, number[]> = { direct: [], 'pipe floor': [], 'mcp-cassette record': [], 'record --no-validate': [] };
  try {
    for (let i = 0; i < rounds; i++) {
      for (const v of VARIANTS) {
        const t0 = performance.now();
        const child = start(v, join(dir, `cold-${i}.cassette.json`));
        await requester(child)(1);
        out[v].push(performance.now() - t0);
        child.stdin!.end();
        await ended(child);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

export async function roundTrips(count: number, blocks: number): Promise<Record<Variant, number[]>> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-bench-'));
  const out: Record<Variant, number[]> = { direct: [], 'pipe floor': [], 'mcp-cassette record': [], 'record --no-validate': [] };
  const children = VARIANTS.map((v, i) => [v, start(v, join(dir, `rt-${i}.cassette.json`))] as const);
  const send = new Map(children.map(([v, c]) => [v, requester(c)]));
  try {
    let id = 0;
    for (const [v] of children) for (let w = 0; w < 200; w++) await send.get(v)!(++id); // warm up
    // Alternate blocks of requests between the variants.
    for (let b = 0; b < blocks; b++) {
      for (const [v] of children) {
        for (let i = 0; i < count / blocks; i++) {
          const t0 = performance.now();
          await send.get(v)!(++id);
          out[v].push((performance.now() - t0) * 1000);
        }
      }
    }
  } finally {
    for (const [, c] of children) c.stdin!.end();
    await Promise.all(children.map(([, c]) => ended(c)));
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

export { summary };
