import test from 'ava';
import { parseFast } from '../../lib/fast-args.js';
import { RECORD_OPTIONS } from '../../recorder/record-options.js';

test('options end at `--` and the rest is the server argv, untouched', (t) => {
  const p = parseFast(
    ['--cassette', 'a.json', '--overwrite', '--redact-arg', 'x', '--', 'node', 'srv.js', '--cassette', 'b'],
    RECORD_OPTIONS,
  )!;
  t.is(p.cassette, 'a.json');
  t.true(p.overwrite);
  t.deepEqual(p['redact-arg'], ['x']);
  t.deepEqual(p['--'], ['node', 'srv.js', '--cassette', 'b']);
});

test('without `--`, the first argument that is not an option starts the server argv', (t) => {
  const p = parseFast(['-c', 'a.json', '--shutdown-grace=500', 'node', 'srv.js', '--', '--x'], RECORD_OPTIONS)!;
  t.is(p.cassette, 'a.json');
  t.is(p['shutdown-grace'], 500);
  t.deepEqual(p['--'], ['node', 'srv.js', '--', '--x']);
});

test('unknown options and missing values fall back to yargs (undefined)', (t) => {
  t.is(parseFast(['--bogus', '--', 'x'], RECORD_OPTIONS), undefined);
  t.is(parseFast(['--cassette'], RECORD_OPTIONS), undefined);
  t.is(parseFast(['--shutdown-grace', 'soon', 'x'], RECORD_OPTIONS), undefined);
});

test('HTTP mode needs no server argv', (t) => {
  const p = parseFast(['--upstream', 'http://127.0.0.1:1/mcp', '--listen', '127.0.0.1:0'], RECORD_OPTIONS)!;
  t.is(p.upstream, 'http://127.0.0.1:1/mcp');
  t.deepEqual(p['--'], []);
});
