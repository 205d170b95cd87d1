/**
 * The fuzz engine: one case = one hostile session recorded through the real `mcp-cassette record
 * --ui --otel` over stdio or Streamable HTTP (JSON or SSE answers): each side must get exactly the
 * bytes the other wrote, the live view must serve every frame, the spans sent must be those
 * `export` makes. Then the cassette through `recover` (when the save was refused), `validate`
 * (every format), `show`, `replay` and `probe` (against the same hostile server), `serve` (stdio
 * and HTTP), and the readers of readers.ts: `view` (with a tampered copy), `export`, `import`,
 * `check`. Every check that fails is returned as one line; an empty list is a pass. Used by
 * fuzz.test.ts (the short run in `npm test`) and cli.ts (`npm run fuzz`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { loadCassette } from '../../lib/cassette/store.js';
import { cliPath, packageRoot } from '../../lib/paths.js';
import { LIVE_URL } from '../helpers/view.js';
import { check, type Driver, firstLine, type Ran, run, track } from './child.js';
import { script, type FuzzCase } from './frames.js';
import { laterReaders, parses, spansLost, startOtlpReceiver, tamper, type ViewWalk, walkLive } from './readers.js';
import { listJournals } from '../../lib/cassette/settle.js';

const hostileServer = join(packageRoot, 'dist', 'test', 'servers', 'hostile-server.js');

function serverArgs(c: FuzzCase): string[] {
  return [hostileServer, String(c.seed), String(c.index), c.kind, c.position, String(c.size)];
}

/** Starts the hostile server over HTTP (`json` or `sse` answers); resolves with its URL. */
async function startHttpServer(c: FuzzCase, mode: 'json' | 'sse', env: NodeJS.ProcessEnv): Promise<{ url: string; stop: () => void }> {
  const child = track(
    spawn(process.execPath, serverArgs(c), { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env, FUZZ_HTTP: mode } }),
  );
  const url = await firstLine(child);
  if (!url) throw new Error('the hostile HTTP server exited before printing its URL');
  return { url, stop: () => child.kill('SIGKILL') };
}

interface Recorded {
  rec: Ran;
  /** What the client got, and what the server wrote for it. */
  gotOut: Buffer;
  wantOut: Buffer;
  /** What replay and check play the cassette against: the same hostile server. */
  target: () => Promise<{ args: string[]; stop?: () => void }>;
  /** The live view of `record --ui`, walked once every frame had crossed. */
  live?: ViewWalk;
  /** The span names `record --otel` sent. */
  spans: string[];
  otelProblems: string[];
}

/** `record --ui --otel`: the case's session through the real recorder, its live view walked while
 * it runs (once it holds every frame), its spans caught by an OTLP receiver. */
async function recordCase(c: FuzzCase, cassette: string, tap: string): Promise<Recorded> {
  const lines = script(c);
  const answers = lines.filter((l) => l.server).length;
  const otlp = await startOtlpReceiver();
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
  const liveArgs = ['--ui', '127.0.0.1:0', '--otel'];
  let live: ViewWalk | undefined;
  const walkWhenDone = async (d: Driver): Promise<void> => {
    const url = (await d.stderrMatch(LIVE_URL))?.[1];
    if (url) live = await walkLive(url, lines.length + answers);
  };
  try {
    if (c.transport === 'stdio') {
      // The client writes every line at once; stdin closes once every answer came back.
      const rec = await run(
        [cliPath, 'record', '--cassette', cassette, ...liveArgs, '--', process.execPath, ...serverArgs(c)],
        { FUZZ_TAP: tap, ...env },
        async (d) => {
          d.child.stdin!.write(Buffer.concat(lines.map((l) => l.client)));
          await d.lines(answers);
          await walkWhenDone(d);
        },
      );
      const wantOut = Buffer.concat(lines.flatMap((l) => (l.server ? [l.server] : [])));
      const target = async () => ({ args: ['--', process.execPath, ...serverArgs(c)] });
      return { rec, gotOut: rec.stdout, wantOut, target, live, spans: otlp.spans, otelProblems: otlp.problems };
    }
    const transport = c.transport;
    const upstream = await startHttpServer(c, transport, { FUZZ_TAP: tap });
    const bodies: Buffer[] = [];
    let rec: Ran;
    try {
      // record --upstream: one POST per line, in order; SIGTERM ends it once the last answer came.
      rec = await run([cliPath, 'record', '--upstream', upstream.url, '--cassette', cassette, ...liveArgs], env, async (d) => {
        const url = await firstLine(d.child);
        if (!url) return;
        for (const l of lines) {
          const res = await request(url, {
            method: 'POST',
            body: l.client,
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          });
          bodies.push(Buffer.from(await res.body.arrayBuffer()));
        }
        await walkWhenDone(d);
        d.child.kill('SIGTERM');
      });
    } finally {
      upstream.stop();
    }
    const event = (data: Buffer): Buffer =>
      transport === 'sse' ? Buffer.concat([Buffer.from('event: message\ndata: '), data, Buffer.from('\n')]) : data;
    const wantOut = Buffer.concat(lines.flatMap((l) => (l.server ? [event(l.server)] : [])));
    const target = async () => {
      const t = await startHttpServer(c, transport, { FUZZ_ECHO_ID: '1' });
      return { args: ['--url', t.url], stop: t.stop };
    };
    return { rec, gotOut: Buffer.concat(bodies), wantOut, target, live, spans: otlp.spans, otelProblems: otlp.problems };
  } finally {
    otlp.close();
  }
}

/** Runs one case (over its transport) in `dir` (created, and removed when it passes). Returns the failures. */
export async function runCase(c: FuzzCase, dir: string): Promise<string[]> {
  rmSync(dir, { recursive: true, force: true }); // a kept failure of an earlier run of this case
  mkdirSync(dir, { recursive: true });
  const failures: string[] = [];
  const lines = script(c);
  const cassette = join(dir, 'fuzz.cassette.json');
  const tap = join(dir, 'server-in.bin');
  const wantIn = Buffer.concat(lines.map((l) => l.client));
  const { rec, gotOut, wantOut, target, live, spans, otelProblems } = await recordCase(c, cassette, tap);
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
  if (!live) failures.push('record --ui: no live view URL on stderr');
  else failures.push(...live.problems);
  failures.push(...otelProblems);

  if (rec.code === 73) {
    // A refused save is documented only with the recover command on stderr and a working recover.
    if (!rec.stderr.includes('mcp-cassette recover')) failures.push('record: exit 73 without the recover command on stderr');
    check(failures, 'recover', await run([cliPath, 'recover', cassette], {}), [0]);
  }
  // The recorder exits with its server; its cassette may be its finisher's to write.
  for (let i = 0; i < 1200 && listJournals(cassette).length > 0; i++) await new Promise((r) => setTimeout(r, 25));
  if (!existsSync(cassette)) {
    failures.push('record: no cassette was saved');
    return failures;
  }
  const messages = loadCassette(cassette).sessions.flatMap((s) => s.messages);
  const saved = messages.length;
  const odd = messages.filter((m) => m.tooDeep || m.rawBase64 !== undefined).length;
  if (live && live.messages !== saved)
    failures.push(`record --ui: the live view held ${String(live.messages)} messages, the cassette ${String(saved)}`);
  const tampered = join(dir, 'tampered.cassette.json');
  tamper(c, cassette, tampered);

  // The readers are independent of each other: run them side by side (each is mostly start-up).
  const clean = lines.slice(2, -1).every((l) => jsonAnswer(l.client) && jsonAnswer(l.server));
  const [first, later] = await Promise.all([
    firstReaders(c, cassette, target),
    laterReaders({ transport: c.transport, clean, cassette, tampered, dir, saved, odd, spans, lost: spansLost(rec.stderr), target }),
  ]);
  failures.push(...first, ...later);
  if (failures.length === 0) rmSync(dir, { recursive: true, force: true });
  return failures;
}

/** validate (every format), show, replay, serve (stdio and HTTP) and probe: their failures. */
async function firstReaders(c: FuzzCase, cassette: string, target: Recorded['target']): Promise<string[]> {
  const failures: string[] = [];
  const lines = script(c);
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
    against(target, (args) => run([cliPath, 'replay', cassette, '--timeout', '10000', ...args], { FUZZ_ECHO_ID: '1' })),
    // serve over stdio: the client's whole script, hostile line included; every request is
    // answered (the recorded answer, or a JSON-RPC error for what cannot be matched).
    run([cliPath, 'serve', cassette], {}, async (d) => {
      d.child.stdin!.write(Buffer.concat(lines.map((l) => l.client)));
      await d.lines(requests);
    }),
    serveOverHttp(
      cassette,
      lines.map((l) => l.client),
    ),
    // probe re-sends what the cassette recorded to the hostile server (which answers any id at
    // once, or never when its scripted answer is no JSON: the short deadline keeps that brief).
    // Failed probes (exit 1) are findings, a crash is not.
    against(target, (args) => run([cliPath, 'probe', cassette, '--timeout', '500', '--fail-on', 'error', ...args], { FUZZ_ECHO_ID: '1' })),
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
  return failures;
}

/** Runs `step` against a fresh target (the hostile server again), stopping it after. */
export async function against(target: Recorded['target'], step: (args: string[]) => Promise<Ran>): Promise<Ran> {
  const t = await target();
  try {
    return await step(t.args);
  } finally {
    t.stop?.();
  }
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

/** `serve --listen` on a free port: each client line POSTed in order (answers, JSON or one SSE
 * event, are collected; a 202 carries none), then SIGTERM. */
async function serveOverHttp(cassette: string, requests: Buffer[]): Promise<{ ran: Ran; answers: string[] }> {
  const answers: string[] = [];
  const ran = await run([cliPath, 'serve', cassette, '--listen', '127.0.0.1:0'], {}, async (d) => {
    const url = await firstLine(d.child);
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
    d.child.kill('SIGTERM');
  });
  return { ran, answers };
}

function firstDiff(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}
