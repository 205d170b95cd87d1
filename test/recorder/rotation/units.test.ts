import test from 'ava';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBytes, parseCount, parseDuration } from '../../../lib/units.js';
import { prune } from '../../../recorder/rotation/retention.js';
import { ensureDirOwner, WRITER } from '../../../recorder/rotation/ownership.js';
import { dirArgsFrom } from '../../../recorder/rotation/dir-args.js';
import { userDataDir } from '../../../recorder/wrap/data-dir.js';

test('durations: 30m, 1h, 1h30m, 7d, 500ms, bare seconds; clear errors otherwise', (t) => {
  t.is(parseDuration('30m', '--x'), 30 * 60_000);
  t.is(parseDuration('1h', '--x'), 3_600_000);
  t.is(parseDuration('1h30m', '--x'), 5_400_000);
  t.is(parseDuration('7d', '--x'), 7 * 86_400_000);
  t.is(parseDuration('500ms', '--x'), 500);
  t.is(parseDuration('90', '--x'), 90_000);
  for (const bad of ['', '0s', '-1m', '1 hour', '10x', 'm', '1h 30m'])
    t.throws(() => parseDuration(bad, '--rotate-interval'), {
      message: `--rotate-interval ${JSON.stringify(bad)} is not a duration; give a positive number with a unit: ms, s, m, h, d or w (for example 30m, 1h, 1h30m, 7d)`,
    });
});

test('sizes: 10MB is 10^7 bytes, 1MiB is 2^20, bare bytes; clear errors otherwise', (t) => {
  t.is(parseBytes('10MB', '--x'), 10_000_000);
  t.is(parseBytes('1MiB', '--x'), 1_048_576);
  t.is(parseBytes('1.5GB', '--x'), 1_500_000_000);
  t.is(parseBytes('512kib', '--x'), 524_288);
  t.is(parseBytes('4096', '--x'), 4096);
  t.is(parseBytes('3k', '--x'), 3000);
  for (const bad of ['', '0', '-5MB', 'ten', '10 XB', '1e6'])
    t.throws(() => parseBytes(bad, '--keep-bytes'), {
      message: new RegExp(`^--keep-bytes ${JSON.stringify(bad)} is not a size;.*for example 10MB$`),
    });
  t.is(parseCount('12', '--x'), 12);
  for (const bad of ['0', '1.5', 'x', '-2'])
    t.throws(() => parseCount(bad, '--keep-files'), { message: /must be a whole number of at least 1/ });
});

test('record options: rotation and retention need --cassette-dir, which excludes --cassette and --overwrite', (t) => {
  const base = { '--': [] as string[] };
  t.is(dirArgsFrom(base), undefined);
  t.throws(() => dirArgsFrom({ ...base, 'keep-files': '3' }), { message: /--keep-files needs --cassette-dir <dir>/ });
  t.throws(() => dirArgsFrom({ ...base, 'cassette-dir': 'd', cassette: 'x.cassette.json' }), { message: /not both/ });
  t.throws(() => dirArgsFrom({ ...base, 'cassette-dir': 'd', overwrite: true }), { message: /--overwrite works on one --cassette file/ });
  t.like(dirArgsFrom({ ...base, 'cassette-dir': 'd', 'rotate-size': '10MB', 'rotate-interval': '1h', 'keep-age': '7d' }), {
    rotate: { bytes: 10_000_000, intervalMs: 3_600_000 },
    retention: { ageMs: 7 * 86_400_000 },
  });
});

test('retention deletes the oldest closed cassettes first, never one whose journal is still there, always keeps the newest', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-prune-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const owner = ensureDirOwner(dir);
  const names = [
    '20260101T000000000Z-00000a',
    '20260102T000000000Z-00000b',
    '20260103T000000000Z-00000c',
    '20260104T000000000Z-00000d',
  ].map((n) => `${n}.cassette.json`);
  const now = Date.now();
  // Cassettes this directory's recorders wrote: named so, and stamped so (ownership.ts).
  const ours = JSON.stringify({
    format: 'mcp-cassette',
    version: 2,
    sessions: [{ id: 's', proxy: { pid: 1, version: 't', writer: { recorder: WRITER, owner } }, messages: [] }],
  });
  names.forEach((n, i) => {
    writeFileSync(join(dir, n), ours.padEnd(200, ' '));
    const when = (now - (4 - i) * 86_400_000) / 1000;
    utimesSync(join(dir, n), when, when);
  });
  // The oldest one still has its journal: it is being written (or folded), so it stays.
  writeFileSync(join(dir, `.${names[0]}.1234.journal`), '');
  t.deepEqual(
    prune(dir, { files: 2 }, now).pruned.map((p) => [p.path.slice(dir.length + 1), p.why]),
    [[names[1], 'keep-files']],
  );
  t.deepEqual(prune(dir, { bytes: 450 }, now).pruned, [], 'both closed ones fit');
  t.deepEqual(
    prune(dir, { bytes: 50 }, now).pruned.map((p) => p.path.slice(dir.length + 1)),
    [names[2]],
    'the newest is always kept, even over --keep-bytes',
  );
  t.deepEqual(prune(dir, { ageMs: 1000 }, now).pruned, [], 'only the newest closed one and the open one are left');
});

test('the per-user data folder: XDG_DATA_HOME, ~/.local/share, macOS Application Support, Windows LOCALAPPDATA', (t) => {
  t.is(userDataDir({ XDG_DATA_HOME: '/data' }, 'linux', '/home/u'), '/data/mcp-cassette');
  t.is(userDataDir({}, 'linux', '/home/u'), '/home/u/.local/share/mcp-cassette');
  t.is(
    userDataDir({ XDG_DATA_HOME: 'relative' }, 'linux', '/home/u'),
    '/home/u/.local/share/mcp-cassette',
    'a relative XDG path is ignored',
  );
  t.is(userDataDir({}, 'darwin', '/Users/u'), '/Users/u/Library/Application Support/mcp-cassette');
  t.true(userDataDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32', 'C:\\Users\\u').endsWith('mcp-cassette'));
});
