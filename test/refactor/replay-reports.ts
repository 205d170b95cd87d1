/**
 * Before/after proof for a restructuring of replay/ (issue 16): replays each example cassette
 * against `serve` of a cassette, against the live example server, and through `serve`'s HTTP
 * fallback (`--mode all --upstream`), and keeps every report (replay JSON, JUnit, Markdown, the
 * console, serve's JSON summary, the exit codes, the cassette the fallback wrote) with the
 * timing fields (durations, timestamps, pids, ports, session ids) taken out.
 *
 *   node dist/test/refactor/replay-reports.js capture <out dir> [<package root>]
 *   node dist/test/refactor/replay-reports.js compare <dir a> <dir b>
 *
 * `<package root>` holds the build to run (`dist/lib/cli.js`; default: this checkout), so a copy
 * of the build from before the change can be captured at any time. The cassettes played are this
 * checkout's. `compare` exits 1 and names the files that differ.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { packageRoot } from '../../lib/paths.js';

const examples = join(packageRoot, 'cassettes', 'examples');

/** Keys whose values are times, process ids or random ids: dropped from JSON reports. */
const VOLATILE_KEYS =
  /^(t|endT|durationMs|duration|elapsedMs|startedAt|endedAt|recordedAt|timestamp|time|pid|id|mcpSessionId|mcp-session-id|date|sentAt|doneAt)$/i;

/** Timing and addresses in text (console, Markdown, JUnit, error messages). */
function scrubText(text: string): string {
  return text
    .replaceAll(examples, 'EXAMPLES')
    .replaceAll(relative(workDir, examples), 'EXAMPLES')
    .replaceAll(buildRoot, 'BUILD')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(/\b\d+(\.\d+)?\s?(ms|s)\b/g, 'N$2')
    .replace(/"(time|pid)":\d+/g, '"$1":N')
    .replace(/time="[^"]*"/g, 'time="N"')
    .replace(/timestamp="[^"]*"/g, 'timestamp="N"')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, 'DATE')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID')
    .replace(/\/tmp\/replay-reports-[^/\s"]+/g, 'TMP');
}

function scrubJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrubJson);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!VOLATILE_KEYS.test(k)) out[k] = scrubJson(v);
    return out;
  }
  return typeof value === 'string' ? scrubText(value) : value;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: '1', NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** Starts a process that prints its URL on the first line of stdout. */
function listen(cmd: string, args: string[], cwd: string): Promise<{ child: ChildProcess; url: string; closed: Promise<Run> }> {
  return new Promise((ready, fail) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: '1', NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    const closed = new Promise<Run>((r) => child.on('close', (code) => r({ code, stdout, stderr })));
    void closed.then((r) => fail(new Error(`${cmd} ${args.join(' ')} ended before printing its URL: ${r.stderr}`)));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const line = stdout.split('\n')[0]!;
      if (stdout.includes('\n')) ready({ child, url: line.trim(), closed });
    });
    child.on('error', fail);
  });
}

let buildRoot = packageRoot;
let workDir = tmpdir();

async function capture(out: string, root: string): Promise<void> {
  buildRoot = root;
  const node = process.execPath;
  const cli = join(buildRoot, 'dist', 'lib', 'cli.js');
  const exampleServer = join(buildRoot, 'dist', 'recorder', 'demo', 'example-server.js');
  const work = mkdtempSync(join(tmpdir(), 'replay-reports-'));
  workDir = work;
  mkdirSync(out, { recursive: true });

  const keep = (name: string, dir: string, r: Run): void => {
    writeFileSync(join(out, `${name}.console.txt`), scrubText(`exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`));
    for (const f of readdirSync(dir)) {
      const text = readFileSync(join(dir, f), 'utf8');
      const scrubbed = f.endsWith('.json') ? `${JSON.stringify(scrubJson(JSON.parse(text)), null, 2)}\n` : scrubText(text);
      writeFileSync(join(out, `${name}.${f}`), scrubbed);
    }
  };
  const reports = (dir: string) => [
    '--report',
    `json=${join(dir, 'replay.json')}`,
    '--report',
    `junit=${join(dir, 'replay.junit.xml')}`,
    '--report',
    `markdown=${join(dir, 'replay.md')}`,
    '--no-progress',
  ];
  const scenario = (name: string) => {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  const stdioCassettes = ['example-server.cassette.json', 'server-everything.cassette.json'];
  const pairs: Array<[string, string, string[]]> = [
    ...stdioCassettes.map((c): [string, string, string[]] => [c, c, []]),
    // Differences everywhere: replay one cassette against serve of another.
    ['example-server.cassette.json', 'server-everything.cassette.json', []],
    ['server-everything.cassette.json', 'example-server.cassette.json', ['--match', 'strict']],
    ['example-server.cassette.json', 'example-server.cassette.json', ['--match', 'order', '--timing', 'x1000']],
  ];
  for (const [played, served, serveArgs] of pairs) {
    const name = `stdio-${basename(played, '.cassette.json')}-vs-serve-${basename(served, '.cassette.json')}${serveArgs.length ? `-${serveArgs.filter((a) => !a.startsWith('--')).join('-')}` : ''}`;
    const dir = scenario(name);
    const r = await run(
      node,
      [
        cli,
        'replay',
        join(examples, played),
        ...reports(dir),
        '--',
        node,
        cli,
        'serve',
        join(examples, served),
        '--report',
        join(dir, 'serve.json'),
        ...serveArgs,
      ],
      work,
    );
    keep(name, dir, r);
  }

  // Against the live example server (stdio).
  {
    const dir = scenario('stdio-example-server-vs-live');
    const r = await run(
      node,
      [cli, 'replay', join(examples, 'example-server.cassette.json'), ...reports(dir), '--', node, exampleServer, 'stdio'],
      work,
    );
    keep('stdio-example-server-vs-live', dir, r);
  }

  // HTTP: serve the cassette on a port, replay against it.
  const httpCassette = 'example-server-http.cassette.json';
  for (const [name, played] of [
    ['http-vs-serve', httpCassette],
    ['http-example-server-stdio-cassette-vs-serve-http', 'example-server.cassette.json'],
  ] as const) {
    const dir = scenario(name);
    const serve = await listen(
      node,
      [cli, 'serve', join(examples, httpCassette), '--listen', '127.0.0.1:0', '--report', join(dir, 'serve.json')],
      work,
    );
    const r = await run(node, [cli, 'replay', join(examples, played), '--url', serve.url, ...reports(dir)], work);
    serve.child.kill('SIGTERM');
    const s = await serve.closed;
    keep(name, dir, {
      code: r.code,
      stdout: `${r.stdout}--- serve exit ${s.code}\n${s.stdout}`,
      stderr: `${r.stderr}--- serve stderr\n${sortedLines(s.stderr)}`,
    });
  }

  // HTTP fallback: serve with a real server behind it records what it forwarded.
  for (const mode of ['all', 'new_episodes'] as const) {
    const name = `http-fallback-${mode}`;
    const dir = scenario(name);
    const copy = join(work, `${name}.cassette.json`);
    if (mode === 'new_episodes') copyFileSync(join(examples, httpCassette), copy);
    const real = await listen(node, [exampleServer, 'http', '0'], work);
    const serve = await listen(
      node,
      [cli, 'serve', copy, '--listen', '127.0.0.1:0', '--mode', mode, '--upstream', real.url, '--report', join(dir, 'serve.json')],
      work,
    );
    const r = await run(node, [cli, 'replay', join(examples, httpCassette), '--url', serve.url, ...reports(dir)], work);
    serve.child.kill('SIGTERM');
    const s = await serve.closed;
    real.child.kill('SIGTERM');
    await real.closed;
    if (existsSync(copy)) copyFileSync(copy, join(dir, 'written.cassette.json'));
    keep(name, dir, {
      code: r.code,
      stdout: `${r.stdout}--- serve exit ${s.code}\n${s.stdout}`,
      stderr: `${r.stderr}--- serve stderr\n${sortedLines(s.stderr)}`,
    });
  }
  rmSync(work, { recursive: true, force: true });
}

/** serve's log lines, sorted: the live validator's findings and the stop message interleave by timing. */
function sortedLines(text: string): string {
  return scrubText(text).split('\n').sort().join('\n');
}

function compare(a: string, b: string): number {
  const names = [...new Set([...readdirSync(a), ...readdirSync(b)])].sort();
  const differ = names.filter(
    (n) => !existsSync(join(a, n)) || !existsSync(join(b, n)) || readFileSync(join(a, n), 'utf8') !== readFileSync(join(b, n), 'utf8'),
  );
  for (const n of differ) console.log(`differs: ${n}`);
  console.log(`${names.length - differ.length} of ${names.length} files identical`);
  return differ.length === 0 ? 0 : 1;
}

const [command, x, y] = process.argv.slice(2);
if (command === 'capture' && x) await capture(resolve(x), resolve(y ?? packageRoot));
else if (command === 'compare' && x && y) process.exitCode = compare(x, y);
else {
  console.error('usage: replay-reports.js capture <out dir> [<package root>] | compare <dir a> <dir b>');
  process.exitCode = 2;
}
