import test from 'ava';
import { join } from 'node:path';
import { echoSecretsServer } from '../helpers/capture.js';
import { node } from '../helpers/paths.js';
import { collect } from '../helpers/proc.js';
import { startRecorder } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

/** Bad production-capture options: exit 2 with a message naming the option and the fix, before
 * the server starts. */
const cases: [string[], RegExp][] = [
  [['--capture', 'loud'], /--capture must be one of full, metadata, hashed \(got "loud"\)/],
  [['--redact-path', 'params/x'], /--redact-path "params\/x" is not a JSON Pointer; start it with "\/"/],
  [['--redact-value', '(a+)+$'], /--redact-value "\(a\+\)\+\$" could take exponential time on some strings/],
  [['--redact-value', '(unclosed'], /--redact-value "\(unclosed" is not a valid regular expression/],
  [['--sample', '2'], /--sample must be a fraction from 0 to 1/],
  [['--sample', '0.5', '--keep-violations', 'loud'], /--keep-violations must be one of error, warning, info, none/],
];

for (const [extra, message] of cases) {
  test(`record ${extra.join(' ')}: usage error`, async (t) => {
    const dir = tempDir(t);
    const r = await collect(startRecorder(t, join(dir, 'x.cassette.json'), [node, echoSecretsServer], { extra }));
    t.is(r.code, 2);
    t.regex(r.stderr, message);
    t.notRegex(r.stderr, /\n\s+at /, 'no stack trace');
  });
}
