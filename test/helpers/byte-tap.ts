#!/usr/bin/env node
/**
 * `node byte-tap.js <dir> <side> <command> [args...]`: a test-only pass-through that spawns the
 * command and appends every byte it forwards to <dir>/<side>-<pid>/in.bin (bytes going to the
 * command) and out.bin (bytes the command wrote). Put one on each side of the proxy and compare
 * the files: that is the byte-for-byte transparency check. <pid> is the proxy's pid in both cases
 * (the client-side tap names its child, the server-side tap its parent), which pairs the files up.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [dir, side, command, ...args] = process.argv.slice(2);
if (!dir || (side !== 'client' && side !== 'server') || !command) {
  process.stderr.write('usage: byte-tap <dir> client|server <command> [args...]\n');
  process.exit(2);
}
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const proxyPid = side === 'client' ? child.pid : process.ppid;
const out = join(dir, `${side}-${String(proxyPid)}`);
mkdirSync(out, { recursive: true });

process.stdin.on('data', (chunk: Buffer) => {
  appendFileSync(join(out, 'in.bin'), chunk);
  child.stdin.write(chunk);
});
process.stdin.on('end', () => child.stdin.end());
child.stdin.on('error', () => {});
child.stdout.on('data', (chunk: Buffer) => {
  appendFileSync(join(out, 'out.bin'), chunk);
  process.stdout.write(chunk);
});
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, () => child.kill(s));
child.on('close', (code, signal) => {
  process.stdin.destroy();
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exitCode = code ?? 1;
  }
});
