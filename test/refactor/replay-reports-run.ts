/**
 * The replay side of the before/after proof (issue 16): replays each example cassette against
 * `serve` of a cassette, against the live example server, and through `serve`'s HTTP fallback
 * (`--mode all --upstream`), and keeps every report (replay JSON, JUnit, Markdown, the console,
 * serve's JSON summary, the exit codes, the cassette the fallback wrote) with what depends on the
 * machine or the moment taken out (`scrubText`, `scrubJson`). Used by the manual tool
 * replay-reports.ts and by outputs.test.ts against the committed goldens
 * (test/refactor/golden/replay/).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { packageRoot } from '../../lib/paths.js';
import { replacePath } from './normalise.js';
import { type Difference, textDiff } from './output-diff.js';
import { inPool } from './pool.js';

/** The committed goldens of this checkout (outputs.test.ts). */
export const GOLDEN_REPLAY = join(packageRoot, 'test', 'refactor', 'golden', 'replay');
/** Regenerates them after an intended change of behaviour (said by outputs.test.ts when it fails). */
export const UPDATE_REPLAY = 'node dist/test/refactor/replay-reports.js update';

const examples = join(packageRoot, 'cassettes', 'examples');

/** Keys whose values are times, process ids or random ids: dropped from JSON reports. */
const VOLATILE_KEYS =
  /^(t|endT|durationMs|duration|elapsedMs|startedAt|endedAt|recordedAt|timestamp|time|pid|id|mcpSessionId|mcp-session-id|date|sentAt|doneAt)$/i;

export interface CaptureOptions {
  /** Scenarios at a time (each starts two or three processes). */
  concurrency?: number;
  /** Each process started (a test kills what outlives it). */
  started?: (child: ChildProcess) => void;
  /** Empty the output folder first (the goldens: a scenario gone leaves no file behind). */
  replace?: boolean;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One capture: the build that runs, its scratch folder, the folder the reports go to. */
interface Capture {
  build: string;
  work: string;
  out: string;
  options: CaptureOptions;
}

/** Paths (examples, build, scratch folder: normalise.ts), then timing and addresses in text
 * (console, Markdown, JUnit, error messages). */
function scrubText(c: Capture, text: string): string {
  // The relative forms first: `../../<checkout>/cassettes/examples` holds the absolute one, and
  // how many `..` it has depends on where the scratch folder lies.
  let out = text;
  for (const from of new Set([c.work, realpathSync(c.work)])) {
    const rel = relative(from, examples);
    out = out.replaceAll(JSON.stringify(rel).slice(1, -1), 'EXAMPLES').replaceAll(rel, 'EXAMPLES');
  }
  out = replacePath(out, examples, 'EXAMPLES');
  out = replacePath(replacePath(out, c.build, 'BUILD'), c.work, 'TMP');
  return out
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(/\b\d+(\.\d+)?\s?(ms|s)\b/g, 'N$2')
    .replace(/"(time|pid)":\d+/g, '"$1":N')
    .replace(/time="[^"]*"/g, 'time="N"')
    .replace(/timestamp="[^"]*"/g, 'timestamp="N"')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, 'DATE')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID')
    .replace(/\/tmp\/replay-reports-[^/\s"]+/g, 'TMP');
}

function scrubJson(c: Capture, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => scrubJson(c, v));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!VOLATILE_KEYS.test(k)) out[k] = scrubJson(c, v);
    return out;
  }
  return typeof value === 'string' ? scrubText(c, value) : value;
}

/** No colour whatever runs this (a terminal, ava's FORCE_COLOR); CI: no progress line. */
const ENV = (): NodeJS.ProcessEnv => ({ ...process.env, CI: '1', NO_COLOR: '1', FORCE_COLOR: '0' });

function run(c: Capture, args: string[]): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: c.work, stdio: ['ignore', 'pipe', 'pipe'], env: ENV() });
    c.options.started?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** Starts a process that prints its URL on the first line of stdout. */
function listen(c: Capture, args: string[]): Promise<{ child: ChildProcess; url: string; closed: Promise<Run> }> {
  return new Promise((ready, fail) => {
    const child = spawn(process.execPath, args, { cwd: c.work, stdio: ['ignore', 'pipe', 'pipe'], env: ENV() });
    c.options.started?.(child);
    let stdout = '';
    let stderr = '';
    const closed = new Promise<Run>((r) => child.on('close', (code) => r({ code, stdout, stderr })));
    void closed.then((r) => fail(new Error(`${args.join(' ')} ended before printing its URL: ${r.stderr}`)));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      if (stdout.includes('\n')) ready({ child, url: stdout.split('\n')[0]!.trim(), closed });
    });
    child.on('error', fail);
  });
}

/**
 * A recording proxy's log lines from its live validator (alerts, the session's summary, what it
 * shed): whether they are printed, and in what order, depends on how soon the validator loaded
 * and judged before the proxy's bounded exit (a starved machine leaves the judging to the
 * cassette write, which prints a summary of its own). The verdicts themselves are in the
 * cassettes and reports, compared as they are; these lines are left out of the console.
 */
function isLiveValidatorLine(line: string): boolean {
  // A pino record (its text may be scrubbed already: `"time":N` is no JSON) with one of those members.
  return /^\{"level":\d+,.*"(violation|summary|shedMessages|judgedAtWrite)":/.test(line);
}

/** Writes the console of `r` and every report in `dir` to the output folder, scrubbed. */
function keep(c: Capture, name: string, dir: string, r: Run): void {
  const stderr = r.stderr
    .split('\n')
    .filter((l) => !isLiveValidatorLine(l))
    .join('\n');
  writeFileSync(join(c.out, `${name}.console.txt`), scrubText(c, `exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${stderr}`));
  for (const f of readdirSync(dir)) {
    const text = readFileSync(join(dir, f), 'utf8');
    const scrubbed = f.endsWith('.json') ? `${JSON.stringify(scrubJson(c, JSON.parse(text)), null, 2)}\n` : scrubText(c, text);
    writeFileSync(join(c.out, `${name}.${f}`), scrubbed);
  }
}

const reports = (dir: string): string[] => [
  ...['--report', `json=${join(dir, 'replay.json')}`, '--report', `junit=${join(dir, 'replay.junit.xml')}`],
  ...['--report', `markdown=${join(dir, 'replay.md')}`, '--no-progress'],
];

function scenarioDir(c: Capture, name: string): string {
  const dir = join(c.work, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** serve's log lines, sorted: the live validator's findings and the stop message interleave by timing. */
function sortedLines(c: Capture, text: string): string {
  return scrubText(c, text).split('\n').sort().join('\n');
}

/** Replays `played` against `serve` of `served` (stdio), with serve's own arguments. */
async function stdioVsServe(c: Capture, played: string, served: string, serveArgs: string[]): Promise<void> {
  const extra = serveArgs.length ? `-${serveArgs.filter((a) => !a.startsWith('--')).join('-')}` : '';
  const name = `stdio-${basename(played, '.cassette.json')}-vs-serve-${basename(served, '.cassette.json')}${extra}`;
  const dir = scenarioDir(c, name);
  const cli = join(c.build, 'dist', 'lib', 'cli.js');
  const serve = [process.execPath, cli, 'serve', join(examples, served), '--report', join(dir, 'serve.json'), ...serveArgs];
  keep(c, name, dir, await run(c, [cli, 'replay', join(examples, played), ...reports(dir), '--', ...serve]));
}

/** Replays the stdio cassette against the live example server. */
async function stdioVsLive(c: Capture): Promise<void> {
  const name = 'stdio-example-server-vs-live';
  const dir = scenarioDir(c, name);
  const server = join(c.build, 'dist', 'recorder', 'demo', 'example-server.js');
  const cli = join(c.build, 'dist', 'lib', 'cli.js');
  const played = join(examples, 'example-server.cassette.json');
  keep(c, name, dir, await run(c, [cli, 'replay', played, ...reports(dir), '--', process.execPath, server, 'stdio']));
}

const HTTP_CASSETTE = 'example-server-http.cassette.json';

/** HTTP: serves the HTTP cassette on a port (with a real server behind it in the fallback modes,
 * whose written cassette is kept), replays `played` against it. */
async function httpVsServe(c: Capture, name: string, played: string, mode?: 'all' | 'new_episodes'): Promise<void> {
  const dir = scenarioDir(c, name);
  const cli = join(c.build, 'dist', 'lib', 'cli.js');
  let served = join(examples, HTTP_CASSETTE);
  let real: Awaited<ReturnType<typeof listen>> | undefined;
  const fallback: string[] = [];
  if (mode) {
    served = join(c.work, `${name}.cassette.json`);
    if (mode === 'new_episodes') copyFileSync(join(examples, HTTP_CASSETTE), served);
    real = await listen(c, [join(c.build, 'dist', 'recorder', 'demo', 'example-server.js'), 'http', '0']);
    fallback.push('--mode', mode, '--upstream', real.url);
  }
  const serve = await listen(c, [cli, 'serve', served, '--listen', '127.0.0.1:0', ...fallback, '--report', join(dir, 'serve.json')]);
  const r = await run(c, [cli, 'replay', join(examples, played), '--url', serve.url, ...reports(dir)]);
  serve.child.kill('SIGTERM');
  const s = await serve.closed;
  if (real) {
    real.child.kill('SIGTERM');
    await real.closed;
    if (existsSync(served)) copyFileSync(served, join(dir, 'written.cassette.json'));
  }
  const stdout = `${r.stdout}--- serve exit ${s.code}\n${s.stdout}`;
  keep(c, name, dir, { code: r.code, stdout, stderr: `${r.stderr}--- serve stderr\n${sortedLines(c, s.stderr)}` });
}

/** Runs every scenario with the build of `build` (default: this checkout), writing the scrubbed
 * reports to `out`. */
export async function captureReports(out: string, build = packageRoot, options: CaptureOptions = {}): Promise<void> {
  const c: Capture = { build, work: mkdtempSync(join(tmpdir(), 'replay-reports-')), out, options };
  if (options.replace) rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const [example, everything] = ['example-server.cassette.json', 'server-everything.cassette.json'];
  const scenarios: Array<() => Promise<void>> = [
    () => stdioVsServe(c, example, example, []),
    () => stdioVsServe(c, everything, everything, []),
    // Differences everywhere: replay one cassette against serve of another.
    () => stdioVsServe(c, example, everything, []),
    () => stdioVsServe(c, everything, example, ['--match', 'strict']),
    () => stdioVsServe(c, example, example, ['--match', 'order', '--timing', 'x1000']),
    () => stdioVsLive(c),
    () => httpVsServe(c, 'http-vs-serve', HTTP_CASSETTE),
    () => httpVsServe(c, 'http-example-server-stdio-cassette-vs-serve-http', example),
    () => httpVsServe(c, 'http-fallback-all', HTTP_CASSETTE, 'all'),
    () => httpVsServe(c, 'http-fallback-new_episodes', HTTP_CASSETTE, 'new_episodes'),
  ];
  try {
    await inPool(scenarios, options.concurrency ?? 2, (scenario) => scenario());
  } finally {
    rmSync(c.work, { recursive: true, force: true });
  }
}

/** How the reports in `b` differ from those in `a`, file by file (by JSON Pointer for JSON). */
export function compareReports(a: string, b: string): { differences: Difference[]; files: number } {
  const names = [...new Set([...readdirSync(a), ...readdirSync(b)])].sort();
  const differences: Difference[] = [];
  for (const name of names) {
    if (!existsSync(join(a, name))) differences.push({ name, lines: [`only in ${b}`] });
    else if (!existsSync(join(b, name))) differences.push({ name, lines: [`only in ${a}`] });
    else {
      const lines = textDiff(readFileSync(join(a, name), 'utf8'), readFileSync(join(b, name), 'utf8'));
      if (lines.length > 0) differences.push({ name, lines });
    }
  }
  return { differences, files: names.length };
}
