/**
 * `mcp-cassette fuzz` on bad input: each mistake is one line on stderr naming it and the fix, exit
 * 2, before any server starts; a folder of finding cassettes is no seed corpus.
 */
import test from 'ava';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, node, root } from '../../helpers/paths.js';
import { collect, spawnTracked } from '../../helpers/proc.js';
import { tempDir } from '../../helpers/tmp.js';

const example = join(root, 'cassettes', 'examples', 'example-server.cassette.json');

test('usage errors: one line naming the problem and the fix, exit 2, nothing started or written', async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, 'started');
  // A "server" that would leave a file behind if it were ever started.
  const server = [node, '-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '')`];
  const cases: [string[], RegExp][] = [
    [['fuzz', example], /name the server to fuzz: mcp-cassette fuzz <cassette\.\.\.> -- <server command>/],
    [['fuzz', example, '--seed', '-1', '--', ...server], /--seed must be a whole number from 0 to 4294967295 \(got -1\)/],
    [['fuzz', example, '--runs', '2.5', '--', ...server], /--runs must be a positive whole number \(got 2\.5\)/],
    [['fuzz', example, '--seconds', '0', '--', ...server], /--seconds must be a positive number \(got 0\)/],
    [['fuzz', example, '--url', 'ftp://x/mcp'], /--url must be http\(s\): ftp:\/\/x\/mcp/],
    [['fuzz', example, '--fail-on', 'info', '--', ...server], /--fail-on must be error or warning \(got "info"\)/],
    [['fuzz', join(dir, 'missing.cassette.json'), '--', ...server], /missing\.cassette\.json/],
    [['fuzz', example, '--junit', join(example, 'x.xml'), '--', ...server], /--junit/],
  ];
  for (const [args, said] of cases) {
    const r = await collect(spawnTracked(t, node, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
    t.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    t.regex(r.stderr, said);
    t.is(r.stderr.trim().split('\n').length, 1, r.stderr);
    t.false(r.stderr.includes('    at '), 'no stack trace');
  }
  t.deepEqual(readdirSync(dir), [], 'no server was started');
});

test('a folder holding only finding cassettes is no seed corpus: exit 2, saying so', async (t) => {
  const dir = tempDir(t);
  const findings = join(dir, 'fuzz-findings');
  mkdirSync(findings);
  const finding = {
    format: 'mcp-cassette',
    version: 2,
    minorVersion: 1,
    finding: {
      kind: 'crash',
      signature: 'crash|tools/call|echo|x',
      message: 'the server exited with code 3',
      seq: 1,
      method: 'tools/call',
      fuzz: { seed: 1, case: 'c', mutation: 'm', change: 'x', version: '0.1.0' },
    },
    sessions: [],
  };
  writeFileSync(join(findings, 'crash-x.cassette.json'), JSON.stringify(finding));
  const r = await collect(spawnTracked(t, node, [cli, 'fuzz', findings, '--', node, '-e', '0'], { stdio: ['ignore', 'pipe', 'pipe'] }));
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /skipping .*crash-x\.cassette\.json: it is a fuzz finding, not a recorded session/);
  t.regex(r.stderr, /no recorded session to start from: every cassette named is a fuzz finding/);
});
