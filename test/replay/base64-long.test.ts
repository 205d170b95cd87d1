/**
 * base64Text on strings of megabytes (found by the fuzz suite: a 6 MB `error.data` string made
 * `replay` exit 70 with "Maximum call stack size exceeded" in the base64 regex).
 */
import test from 'ava';
import { base64Text } from '../../replay/volatile-values.js';

test('an 8 MB base64 string of text decodes without a stack overflow', (t) => {
  t.is(base64Text('QUJD'.repeat(2 << 20)), 'ABC'.repeat(2 << 20));
});

test('an 8 MB string of base64 letters that is not text stays as it is', (t) => {
  t.is(base64Text('x'.repeat(8 << 20)), undefined);
});

test('padding only at the end, whole quads only', (t) => {
  t.is(base64Text('QUJDREVG'), 'ABCDEF');
  t.is(base64Text('QUJDREU='), 'ABCDE');
  t.is(base64Text('QUJDRA=='), 'ABCD');
  t.is(base64Text('QUJD=EVG'), undefined);
  t.is(base64Text('QUJDRA=A'), undefined);
  t.is(base64Text('QUJDREVGQ'), undefined);
  t.is(base64Text('QUJDR==='), undefined);
});
