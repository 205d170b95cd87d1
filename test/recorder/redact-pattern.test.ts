import test from 'ava';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { rawServer, node } from '../helpers/paths.js';
import { collect } from '../helpers/proc.js';
import { line, readCassette, startRecorder } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

// Against this argument "(a+)+$" backtracks 2^40 times: a proxy that ran it would never start.
const EVIL_ARG = `--name=${'a'.repeat(40)}!`;

test('record refuses a --redact-arg pattern that can backtrack exponentially, naming it and the fix, before starting the server', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'evil.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo', EVIL_ARG], { extra: ['--redact-arg', '(a+)+$'] });
  const r = await collect(proxy);
  t.is(r.code, 2, 'a usage error');
  t.regex(
    r.stderr,
    /--redact-arg "\(a\+\)\+\$" could take exponential time on some arguments: the repeated part "\(a\+\)\+" contains a repetition \("a\+"\) that can match what follows it; rewrite it without repetition inside repetition/,
  );
  t.notRegex(r.stderr, /raw-server/, 'the server was not started');
  t.false(existsSync(cassette));
});

test('a safe --redact-arg pattern against the same argument masks it as usual', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'safe.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo', EVIL_ARG], {
    extra: ['--redact-arg', '^(a+)!$'] /* flag values are matched alone */,
  });
  const done = collect(proxy);
  proxy.stdin!.end(line({ jsonrpc: '2.0', id: 1, method: 'env' }));
  const r = await done;
  t.is(r.code, 0);
  t.regex(r.stdout.toString(), new RegExp(`"argv":\\["echo","${EVIL_ARG}"\\]`), 'the server got the argument unchanged');
  const command = (readCassette(cassette).sessions[0]!.target as { command: string[] }).command;
  t.false(command.includes(EVIL_ARG), 'the cassette does not hold it');
  t.true(
    command.some((a) => a.startsWith('--name=') && !a.includes('aaaa')),
    'it holds it masked',
  );
});
