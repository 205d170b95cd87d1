/**
 * `mcp-cassette fuzz --url <endpoint> -- <command>` over Streamable HTTP, against the seeded-defect
 * server in both eras: the fuzzer starts the server, starts it again after each crash and hang,
 * shrinks every finding on a restarted server, and `replay --url` of each cassette reproduces it
 * against the same build and passes against the fixed one. stdout noise is no HTTP finding (the
 * server's stdout is free-form there), and a replay over --url refuses a stderr panic it cannot see.
 */
import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, fuzzTargetCommand, recordSeedCassette } from '../../helpers/fuzz-target.js';
import { cli, node } from '../../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../../helpers/proc.js';
import { tempDir } from '../../helpers/tmp.js';

interface JsonFinding {
  kind: string;
  rule?: string;
  tool?: string;
  message: string;
  cassette?: string;
  reproducible: boolean;
}

function run(t: ExecutionContext, args: string[]) {
  return collect(
    spawnTracked(t, node, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GITHUB_STEP_SUMMARY: '' } }),
  );
}

/** 400 cases of seed 1 at `url`, the server started (and restarted) by `command` when given. */
async function fuzzAt(t: ExecutionContext, seed: string, url: string, dir: string, command: string[] = []) {
  const json = join(dir, 'fuzz.json');
  const args = [
    'fuzz',
    seed,
    '--url',
    url,
    '--runs',
    '400',
    '--seed',
    '1',
    '--timeout',
    '1000',
    '--out',
    join(dir, 'findings'),
    '--json',
    json,
  ];
  const r = await run(t, [...args, ...(command.length ? ['--', ...command] : [])]);
  return { r, json };
}

/** The target over HTTP on `port`, until the test ends. */
async function serveAt(t: ExecutionContext, port: number, fixed = false): Promise<string> {
  const [cmd, ...args] = [...fuzzTargetCommand({ http: true, fixed }), '--port', String(port)];
  const server = spawnTracked(t, cmd!, args);
  server.stderr!.resume();
  return (await waitForOutput(server.stdout!, (s) => s.includes('\n'))).split('\n')[0]!.trim();
}

const EXPECTED = [
  { kind: 'crash', tool: 'echo' },
  { kind: 'hang', tool: 'parity' },
  { kind: 'error-misuse', rule: 'TOOLS-ERR-EXECUTION', tool: 'convert_temperature' },
  { kind: 'stderr-panic', tool: 'inspect_json' },
  { kind: 'rule', rule: 'TOOLS-CALL-SHAPE', tool: 'word_count' },
];

// 2026-07-28 (stateless): the 2025 era's sessions over HTTP are the seeded defects' stdio proof,
// the fuzzer's HTTP session handling the real servers' and the no-command test's.
for (const era of ['2026-07-28'] as const) {
  test(`Streamable HTTP, ${era}: the fuzzer restarts the server it started; every finding shrunk and reproduced by replay --url`, async (t) => {
    const dir = tempDir(t);
    const seed = await recordSeedCassette(t, { era, transport: 'http', dir });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const { r, json } = await fuzzAt(t, seed, url, dir, [...fuzzTargetCommand({ http: true }), '--port', String(port)]);
    t.is(r.code, 1, r.stderr);
    const findings = (JSON.parse(readFileSync(json, 'utf8')) as { findings: JsonFinding[] }).findings;
    t.is(findings.length, EXPECTED.length, JSON.stringify(findings.map((f) => [f.kind, f.rule, f.tool, f.message])));
    for (const e of EXPECTED) {
      const f = findings.find((x) => x.kind === e.kind && x.tool === e.tool && (!e.rule || x.rule === e.rule));
      t.truthy(f?.cassette, `${e.kind} on ${e.tool}`);
      if (!f?.cassette) continue;
      t.true(f.reproducible);
      const live = await serveAt(t, await freePort());
      const same = await run(t, ['replay', f.cassette, '--url', live]);
      if (e.kind === 'stderr-panic') {
        t.is(same.code, 2, same.stderr);
        t.regex(same.stderr, /seen on the server's own stderr, which a replay over --url cannot see/);
        continue;
      }
      t.is(same.code, 1, `${e.kind}: ${same.stdout.toString()}${same.stderr}`);
      // Against the fixed build over HTTP, once per era, the crash (the server gone for good).
      if (e.kind !== 'crash') continue;
      const fixed = await serveAt(t, await freePort(), true);
      const after = await run(t, ['replay', f.cassette, '--url', fixed]);
      t.is(after.code, 0, `${e.kind} fixed: ${after.stdout.toString()}${after.stderr}`);
    }
  });
}

test('Streamable HTTP without a command: a crash ends the run, reported, with what was found so far', async (t) => {
  const dir = tempDir(t);
  const seed = await recordSeedCassette(t, { era: '2025-11-25', transport: 'http', dir });
  const url = await serveAt(t, await freePort());
  const { r, json } = await fuzzAt(t, seed, url, dir);
  t.is(r.code, 1, r.stderr);
  const report = JSON.parse(readFileSync(json, 'utf8')) as { stoppedBy: string; error?: string; cases: number; findings: JsonFinding[] };
  t.is(report.stoppedBy, 'server-gone');
  t.regex(report.error ?? '', /stopped answering; give its start command after -- so the fuzzer can start it again/);
  t.true(report.cases < 400);
  const crash = report.findings.find((f) => f.kind === 'crash');
  t.truthy(crash);
  t.false(crash!.reproducible, 'no fresh server to show it again');
  t.is(crash!.cassette, undefined);
});
