/** Shared pieces of the serve tests: starting `serve` as a host or an HTTP server, and a raw
 * JSON-lines client for the error cases. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import type { Cassette } from '../../../lib/cassette/cassette.js';
import { cli, exampleServer, node } from '../../helpers/paths.js';
import { collect, spawnTracked, type Finished } from '../../helpers/proc.js';
import { waitForFinishers } from '../../helpers/recording.js';

export function serveArgs(cassette: string, extra: string[] = []): string[] {
  return [cli, 'serve', cassette, '--log-level', 'warn', ...extra];
}

export interface Listening {
  url: string;
  child: ChildProcess;
  /** SIGTERM, then the exit status and stderr. */
  stop(): Promise<Finished>;
}

/** Starts a CLI process that prints its URL as the first stdout line (`serve --listen`, `record --upstream`, the example server). */
export async function startListening(t: ExecutionContext, args: string[], env?: NodeJS.ProcessEnv): Promise<Listening> {
  const child = spawnTracked(t, node, args, env ? { env } : {});
  const finished = collect(child);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no URL within 15 s from ${args.join(' ')}`)), 15_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(out.slice(0, out.indexOf('\n')).trim());
      }
    });
    void finished.then((f) => reject(new Error(`exited ${f.code} before listening: ${f.stderr}`)));
  });
  return {
    url,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      return finished;
    },
  };
}

export interface RawSession {
  pid: number;
  /** Sends one message and resolves with the next message whose id equals its id. */
  request(message: Record<string, unknown>): Promise<Record<string, unknown>>;
  send(message: Record<string, unknown>): void;
  /** Every message received so far. */
  received: Array<Record<string, unknown>>;
  /** Resolves with the next received message satisfying `predicate`. */
  next(predicate: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Closes stdin and waits for the exit. */
  end(): Promise<Finished>;
}

/** `serve` over stdio, driven line by line as a client would. */
export function rawServe(t: ExecutionContext, cassette: string, extra: string[] = []): RawSession {
  const child = spawn(node, serveArgs(cassette, extra), { stdio: ['pipe', 'pipe', 'pipe'] });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const received: Array<Record<string, unknown>> = [];
  const waiters: Array<{ p: (m: Record<string, unknown>) => boolean; r: (m: Record<string, unknown>) => void }> = [];
  let buf = '';
  const err: Buffer[] = [];
  child.stderr.on('data', (c: Buffer) => err.push(c));
  child.stdout.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const m = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
      buf = buf.slice(nl + 1);
      received.push(m);
      const i = waiters.findIndex((w) => w.p(m));
      if (i >= 0) waiters.splice(i, 1)[0]!.r(m);
    }
  });
  const exit = new Promise<Finished>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.from(''), stderr: Buffer.concat(err).toString('utf8') })),
  );
  const next = (p: (m: Record<string, unknown>) => boolean) => {
    const seen = received.find(p);
    if (seen) {
      received.splice(received.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    return new Promise<Record<string, unknown>>((r) =>
      waiters.push({
        p,
        r: (m) => {
          received.splice(received.indexOf(m), 1);
          r(m);
        },
      }),
    );
  };
  const send = (m: Record<string, unknown>) => child.stdin.write(JSON.stringify(m) + '\n');
  return {
    pid: child.pid!,
    received,
    send,
    next,
    request: (m) => {
      send(m);
      return next((r) => r.id === m.id && !('method' in r));
    },
    end: () => {
      child.stdin.end();
      return exit;
    },
  };
}

export const LEGACY_INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: { elicitation: { form: {} } },
    clientInfo: { name: 'raw-test', version: '0.0.1' },
  },
};

/** The example server (stdio, both eras) behind a shell that notes every start in `marker`. */
export function countedServer(marker: string, mode = 'stdio'): string[] {
  return ['/bin/sh', '-c', 'echo started >> "$0"; exec "$1" "$2" "$3"', marker, node, exampleServer, mode];
}

/** How many times a counted server was started. */
export const starts = (marker: string): number =>
  existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0;

/** The cassette file as JSON, once the recorders that serve ran in place have it written. */
export const readJson = <T = Cassette>(path: string): T => {
  waitForFinishers(path);
  return JSON.parse(readFileSync(path, 'utf8')) as T;
};

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
