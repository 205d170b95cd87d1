/**
 * The fuzz engine: one case = one hostile session recorded through the real `mcp-cassette record`
 * over stdio or Streamable HTTP (JSON or SSE answers), then the cassette through `recover` (when the save was refused), `validate` (text
 * and json), `show`, `replay` (against the same hostile server) and `serve`. Every check that
 * fails is returned as one line; an empty list is a pass. Used by fuzz.test.ts (the short run in
 * `npm test`) and cli.ts (`npm run fuzz`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { cliPath, packageRoot } from '../../lib/paths.js';
import { script, type FuzzCase } from './frames.js';
import { listJournals } from '../../lib/cassette/settle.js';

const hostileServer = join(packageRoot, 'dist', 'test', 'servers', 'hostile-server.js');
/** A guard against a hang, not a timing assertion: no healthy step comes near it. */
const stepTimeoutMs = 60_000;

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
}

const live = new Set<ChildProcess>();
/** Kills every process a run started and has not seen exit (a test's teardown, the CLI's exit). */
export function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}

/**
 * Runs a command; `drive` gets the child to write to and a function that resolves once stdout has
 * `n` lines, and returns when stdin may be closed.
 */
function run(
  args: string[],
  env: NodeJS.ProcessEnv,
  drive?: (child: ChildProcess, lines: (n: number) => Promise<void>) => Promise<void>,
): Promise<Ran> {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } });
  live.add(child);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let newlines = 0;
  let wanted: { n: number; resolve: () => void } | undefined;
  child.stdout!.on('data', (c: Buffer) => {
    out.push(c);
    for (const byte of c) if (byte === 0x0a) newlines += 1;
    if (wanted && newlines >= wanted.n) wanted.resolve();
  });
  child.stderr!.on('data', (c: Buffer) => err.push(c));
  child.stdin!.on('error', () => {}); // a proxy that died shows up in its exit status
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, stepTimeoutMs);
  const closed = new Promise<Ran>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), timedOut });
    });
  });
  const lines = (n: number): Promise<void> =>
    Promise.race([
      new Promise<void>((resolve) => {
        wanted = { n, resolve };
        if (newlines >= n) resolve();
      }),
      closed.then(() => undefined),
    ]);
  void (drive ? drive(child, lines) : Promise.resolve()).then(() => child.stdin!.end());
  return closed;
}

/** The first stderr line that looks like a stack trace or an internal error, if any. */
export function stackTraceLine(stderr: string): string | undefined {
  return stderr
    .split('\n')
    .find(
      (l) =>
        /^\s+at \S/.test(l) || /\b\w*Error: .*\/(dist|lib|node_modules|recorder|replay|validators)\//.test(l) || /internal error/i.test(l),
    );
}

function serverArgs(c: FuzzCase): string[] {
  return [hostileServer, String(c.seed), String(c.index), c.kind, c.position, String(c.size)];
}

function check(failures: string[], step: string, r: Ran, allowed: number[]): boolean {
  const trace = stackTraceLine(r.stderr);
  const problems: string[] = [];
  if (r.timedOut) problems.push(`hung (killed after ${String(stepTimeoutMs / 1000)} s)`);
  else if (r.signal) problems.push(`killed by ${r.signal}`);
  else if (!allowed.includes(r.code ?? -1)) problems.push(`exit ${String(r.code)} (expected ${allowed.join(' or ')})`);
  if (trace) problems.push(`exit ${String(r.code)}, stack trace on stderr: ${trace.trim().slice(0, 200)}`);
  if (problems.length === 0) return true;
  const tail = r.stderr.trim().split('\n').slice(-2).join(' | ').slice(0, 300);
  failures.push(`${step}: ${problems.join('; ')}${tail && !trace ? ` — stderr: ${tail}` : ''}`);
  return false;
}

/** The first line a child writes on stdout (a URL), or undefined if it exits first. */
function firstLine(child: ChildProcess): Promise<string | undefined> {
  let text = '';
  return new Promise((resolve) => {
    const onData = (c: Buffer): void => {
      text += c.toString('utf8');
      const at = text.indexOf('\n');
      if (at !== -1) {
        child.stdout!.off('data', onData);
        resolve(text.slice(0, at).trim());
      }
    };
    child.stdout!.on('data', onData);
    child.on('close', () => resolve(undefined));
  });
}

/** Starts the hostile server over HTTP (`json` or `sse` answers); resolves with its URL. */
async function startHttpServer(c: FuzzCase, mode: 'json' | 'sse', env: NodeJS.ProcessEnv): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, serverArgs(c), {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env, FUZZ_HTTP: mode },
  });
  live.add(child);
  child.on('close', () => live.delete(child));
  const url = await firstLine(child);
  if (!url) throw new Error('the hostile HTTP server exited before printing its URL');
  return { url, stop: () => child.kill('SIGKILL') };
}

/** Runs one case (over its transport) in `dir` (created, and removed when it passes). Returns the failures. */
export async function runCase(c: FuzzCase, dir: string): Promise<string[]> {
  const transport = c.transport;
  rmSync(dir, { recursive: true, force: true }); // a kept failure of an earlier run of this case
  mkdirSync(dir, { recursive: true });
  const failures: string[] = [];
  const lines = script(c);
  const cassette = join(dir, 'fuzz.cassette.json');
  const tap = join(dir, 'server-in.bin');
  const answers = lines.filter((l) => l.server).length;

  const wantIn = Buffer.concat(lines.map((l) => l.client));
  let rec: Ran;
  let gotOut: Buffer;
  let wantOut: Buffer;
  let replayTarget: { args: string[]; stop?: () => void };
  if (transport === 'stdio') {
    // record: the client writes every line at once; stdin closes once every answer came back.
    rec = await run(
      [cliPath, 'record', '--cassette', cassette, '--', process.execPath, ...serverArgs(c)],
      { FUZZ_TAP: tap },
      async (child, waitLines) => {
        child.stdin!.write(wantIn);
        await waitLines(answers);
      },
    );
    gotOut = rec.stdout;
    wantOut = Buffer.concat(lines.flatMap((l) => (l.server ? [l.server] : [])));
    replayTarget = { args: ['--', process.execPath, ...serverArgs(c)] };
  } else {
    const upstream = await startHttpServer(c, transport, { FUZZ_TAP: tap });
    const bodies: Buffer[] = [];
    try {
      // record --upstream: one POST per line, in order; SIGTERM ends it once the last answer came.
      rec = await run([cliPath, 'record', '--upstream', upstream.url, '--cassette', cassette], {}, async (child) => {
        const url = await firstLine(child);
        if (!url) return;
        for (const l of lines) {
          const res = await request(url, {
            method: 'POST',
            body: l.client,
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          });
          bodies.push(Buffer.from(await res.body.arrayBuffer()));
        }
        child.kill('SIGTERM');
      });
    } finally {
      upstream.stop();
    }
    gotOut = Buffer.concat(bodies);
    wantOut = Buffer.concat(
      lines.flatMap((l) =>
        l.server
          ? [transport === 'sse' ? Buffer.concat([Buffer.from('event: message\ndata: '), l.server, Buffer.from('\n')]) : l.server]
          : [],
      ),
    );
    const target = await startHttpServer(c, transport, { FUZZ_ECHO_ID: '1' });
    replayTarget = { args: ['--url', target.url], stop: target.stop };
  }
  check(failures, 'record', rec, [0, 73]);
  if (!gotOut.equals(wantOut))
    failures.push(
      `record: the client received ${String(gotOut.length)} bytes, not the ${String(wantOut.length)} the server wrote (first difference at byte ${String(firstDiff(gotOut, wantOut))})`,
    );
  const gotIn = existsSync(tap) ? readFileSync(tap) : Buffer.alloc(0);
  if (!gotIn.equals(wantIn))
    failures.push(
      `record: the server received ${String(gotIn.length)} bytes, not the ${String(wantIn.length)} the client wrote (first difference at byte ${String(firstDiff(gotIn, wantIn))})`,
    );

  if (rec.code === 73) {
    // A refused save is documented only with the recover command on stderr and a working recover.
    if (!rec.stderr.includes('mcp-cassette recover')) failures.push('record: exit 73 without the recover command on stderr');
    check(failures, 'recover', await run([cliPath, 'recover', cassette], {}), [0]);
  }
  // The recorder exits with its server; its cassette may be its finisher's to write.
  for (let i = 0; i < 1200 && listJournals(cassette).length > 0; i++) await new Promise((r) => setTimeout(r, 25));
  if (!existsSync(cassette)) {
    replayTarget.stop?.();
    failures.push('record: no cassette was saved');
    return failures;
  }

  // The readers are independent of each other: run them side by side (each is mostly start-up).
  const requests = lines.filter((l) => l.server).length;
  const [text, json, junit, sarif, github, show, messages, replay, serve, served, probe] = await Promise.all([
    run([cliPath, 'validate', cassette], {}),
    run([cliPath, 'validate', cassette, '--format', 'json'], {}),
    run([cliPath, 'validate', cassette, '--format', 'junit'], {}),
    run([cliPath, 'validate', cassette, '--format', 'sarif'], {}),
    run([cliPath, 'validate', cassette, '--format', 'github'], {}),
    run([cliPath, 'show', cassette], {}),
    run([cliPath, 'show', cassette, '--messages'], {}),
    // Against the same hostile server: differences (exit 1) are allowed, a crash is not.
    run([cliPath, 'replay', cassette, '--timeout', '10000', ...replayTarget.args], { FUZZ_ECHO_ID: '1' }).finally(() =>
      replayTarget.stop?.(),
    ),
    // serve over stdio: the client's whole script, hostile line included; every request is
    // answered (the recorded answer, or a JSON-RPC error for what cannot be matched).
    run([cliPath, 'serve', cassette], {}, async (child, waitLines) => {
      child.stdin!.write(Buffer.concat(lines.map((l) => l.client)));
      await waitLines(requests);
    }),
    serveOverHttp(
      cassette,
      lines.map((l) => l.client),
    ),
    // probe re-sends what the cassette recorded to the hostile server (which answers any id at
    // once, or never when its scripted answer is no JSON: the short deadline keeps that brief).
    // Failed probes (exit 1) are findings, a crash is not.
    probeTarget(c).then(async (target) => {
      try {
        return await run([cliPath, 'probe', cassette, '--timeout', '500', '--fail-on', 'error', ...target.args], { FUZZ_ECHO_ID: '1' });
      } finally {
        target.stop?.();
      }
    }),
  ]);
  check(failures, 'validate (text)', text, [0]);
  if (check(failures, 'validate (json)', json, [0])) parses(failures, 'validate (json)', json.stdout);
  if (
    check(failures, 'validate (junit)', junit, [0]) &&
    !/^<\?xml [^>]*\?>\s*<testsuites[\s>][\s\S]*<\/testsuites>\s*$/.test(junit.stdout.toString('utf8'))
  )
    failures.push('validate (junit): stdout is not one <testsuites> document');
  if (check(failures, 'validate (sarif)', sarif, [0])) parses(failures, 'validate (sarif)', sarif.stdout);
  check(failures, 'validate (github)', github, [0]);
  check(failures, 'show', show, [0]);
  check(failures, 'show --messages', messages, [0]);
  check(failures, 'replay', replay, [0, 1]);
  // A hostile request or answer that is no JSON was recorded as a text frame, not as an
  // interaction: serve answers such a request with an error (-32700 when it cannot parse it, an
  // unmatched request and final status 1 when it can), and replays a recorded answer that
  // followed the text frame where it fell. Otherwise every request gets exactly its answer.
  const clean = lines.slice(2, -1).every((l) => jsonAnswer(l.client) && jsonAnswer(l.server));
  const serveExit = clean ? [0] : [0, 1];
  if (check(failures, 'serve', serve, serveExit))
    answered(
      failures,
      'serve',
      serve.stdout
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim() !== ''),
      requests,
      clean,
    );
  if (check(failures, 'serve --listen', served.ran, serveExit)) answered(failures, 'serve --listen', served.answers, requests, clean);
  check(failures, 'probe', probe, [0, 1, 2]);
  if (probe.code === 2 && !/never answered|did not answer/.test(probe.stderr))
    failures.push(`probe: exit 2 without saying the server never answered — stderr: ${probe.stderr.trim().slice(0, 300)}`);
  if (failures.length === 0) rmSync(dir, { recursive: true, force: true });
  return failures;
}

/** Whether a scripted server frame is one JSON value (strict UTF-8, no BOM). */
function jsonAnswer(frame: Buffer | undefined): boolean {
  if (!frame) return false;
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(frame));
    return true;
  } catch {
    return false;
  }
}

/** Every request got its answer (`exact`: one each), each a JSON-RPC response or error. */
function answered(failures: string[], step: string, answers: string[], requests: number, exact: boolean): void {
  if (exact ? answers.length !== requests : answers.length < requests)
    failures.push(`${step}: ${String(answers.length)} answers to ${String(requests)} requests`);
  for (const a of answers) {
    let v: unknown;
    try {
      v = JSON.parse(a);
    } catch {
      v = undefined;
    }
    const ok = v !== null && typeof v === 'object' && ('result' in v || 'error' in v);
    if (!ok && !a.includes('"result":') && !a.includes('"error":')) failures.push(`${step}: not a JSON-RPC answer: ${a.slice(0, 120)}`);
  }
}

function parses(failures: string[], step: string, out: Buffer): void {
  try {
    JSON.parse(out.toString('utf8'));
  } catch {
    failures.push(`${step}: stdout is not JSON`);
  }
}

/** `serve --listen` on a free port: each client line POSTed in order (answers, JSON or one SSE
 * event, are collected; a 202 carries none), then SIGTERM. */
async function serveOverHttp(cassette: string, requests: Buffer[]): Promise<{ ran: Ran; answers: string[] }> {
  const answers: string[] = [];
  const ran = await run([cliPath, 'serve', cassette, '--listen', '127.0.0.1:0'], {}, async (child) => {
    const url = await firstLine(child);
    if (!url) return;
    let session: string | undefined;
    for (const body of requests) {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      if (session) headers['mcp-session-id'] = session;
      const res = await request(url, { method: 'POST', body, headers });
      const sid = res.headers['mcp-session-id'];
      if (typeof sid === 'string') session = sid;
      const text = await res.body.text();
      if (res.statusCode === 202 || text === '') continue;
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        for (const line of text.split('\n'))
          if (line.startsWith('data:') && line.slice(5).trim() !== '') answers.push(line.slice(5).trim());
      } else answers.push(text);
    }
    child.kill('SIGTERM');
  });
  return { ran, answers };
}

/** Where probe sends its requests: the hostile server again, answering by method. */
async function probeTarget(c: FuzzCase): Promise<{ args: string[]; stop?: () => void }> {
  if (c.transport === 'stdio') return { args: ['--', process.execPath, ...serverArgs(c)] };
  const target = await startHttpServer(c, c.transport, { FUZZ_ECHO_ID: '1' });
  return { args: ['--url', target.url], stop: target.stop };
}

function firstDiff(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}
