import test, { type ExecutionContext } from 'ava';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, node, rawServer } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';

// What `record` prints for a person at a terminal: readable lines and a summary table on a real
// pseudo-terminal (util-linux `script`), JSON through a pipe, --log-format and NO_COLOR/FORCE_COLOR
// to choose. raw-server's `noise` answer writes a line that is no JSON on stdout: one violation.
const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript)
  console.log("# terminal output tests skipped: they need util-linux's `script` for a real pseudo-terminal (apt-get install bsdutils)");
const ESC = '\x1b[';
const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

const request = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'noise' })}\n`;

/** Runs record with stdout and stderr on a pseudo-terminal. Its stdin is a feeder that sends the
 * request and keeps the session open until the live alert has fired (`--alert-exec` touches a
 * file), so the verdict does not depend on how fast a loaded machine starts the validator. */
async function onTerminal(t: ExecutionContext, extra: string[], env: NodeJS.ProcessEnv = {}) {
  const dir = tempDir(t);
  const flag = join(dir, 'alerted');
  const feeder = join(dir, 'feeder.cjs');
  writeFileSync(
    feeder,
    `process.stdout.write(${JSON.stringify(request)});
     const fs = require('node:fs');
     const started = Date.now();
     const timer = setInterval(() => { if (fs.existsSync(${JSON.stringify(flag)}) || Date.now() - started > 60000) clearInterval(timer); }, 50);`,
  );
  const record = [node, cli, 'record', '-c', join(dir, 'tty.cassette.json'), '--alert-exec', `touch ${quote(flag)}`, ...extra];
  const command = `${[node, feeder].map(quote).join(' ')} | ${[...record, '--', node, rawServer, 'echo'].map(quote).join(' ')}`;
  const r = await collect(
    spawnTracked(t, 'script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', TERM: 'xterm', ...env },
    }),
  );
  return { code: r.code, text: r.stdout.toString() };
}

(hasScript ? test : test.skip)('on a terminal: readable coloured lines, and the summary as a table', async (t) => {
  const { code, text } = await onTerminal(t, []);
  t.is(code, 0);
  t.notRegex(text, /\{"level":\d+,"time"/, 'no JSON records');
  t.true(text.includes(ESC), 'coloured');
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
  t.regex(plain, /\[\d\d:\d\d:\d\d\.\d{3}\] ERROR: STDIO-STDOUT-CLEAN \(message #\d+ S>C\): non-MCP output on stdout/);
  t.regex(
    plain,
    /WARN: spec violations seen in this session:\r?\n\s+\d+\s+error\s+STDIO-STDOUT-CLEAN\r?\n\s+\d+\s+error\s+ENV-UTF8/,
    'one row per rule, on its own line',
  );
  t.regex(plain, /INFO: session saved/);
});

(hasScript ? test : test.skip)('on a terminal: NO_COLOR keeps the lines plain; --log-format json keeps JSON', async (t) => {
  const plain = await onTerminal(t, [], { NO_COLOR: '1' });
  t.false(plain.text.includes(ESC), 'no escape codes');
  t.regex(plain.text, /ERROR: STDIO-STDOUT-CLEAN/);
  const json = await onTerminal(t, ['--log-format', 'json']);
  t.regex(json.text, /\{"level":50,.*"msg":"ERROR STDIO-STDOUT-CLEAN/);
  t.regex(json.text, /"msg":"spec violations seen in this session:\\n/);
});

test('through a pipe: JSON records; --log-format pretty gives readable lines, FORCE_COLOR colours them', async (t) => {
  const run = async (extra: string[], env: NodeJS.ProcessEnv = {}) => {
    const child = spawnTracked(
      t,
      node,
      [cli, 'record', '-c', join(tempDir(t), 'pipe.cassette.json'), ...extra, '--', node, rawServer, 'echo'],
      { env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...env } },
    );
    const done = collect(child);
    child.stdin!.write(request);
    // The session stays open until the live alert is out (or the command failed at once).
    await waitForOutput(child.stderr!, (text) => text.includes('STDIO-STDOUT-CLEAN') || text.includes('--log-format'), 60_000);
    child.stdin!.end();
    return done;
  };
  const json = await run([]);
  t.is(json.code, 0);
  t.regex(json.stderr, /^\{"level":30,/m);
  t.regex(json.stderr, /"msg":"ERROR STDIO-STDOUT-CLEAN/);
  const pretty = await run(['--log-format', 'pretty']);
  t.notRegex(pretty.stderr, /\{"level":\d+,"time"/);
  t.false(pretty.stderr.includes(ESC), 'no colour through a pipe');
  t.regex(pretty.stderr, /ERROR: STDIO-STDOUT-CLEAN/);
  const forced = await run(['--log-format', 'pretty'], { FORCE_COLOR: '1' });
  t.true(forced.stderr.includes(ESC), 'FORCE_COLOR colours a pipe');
  const bad = await run(['--log-format', 'yaml']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--log-format must be json or pretty \(got "yaml"\)/);
});
