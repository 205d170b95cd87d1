import test from 'ava';
import { backtrackingRisk } from '../../lib/safe-pattern.js';

const RISKY: [string, RegExp][] = [
  ['(a+)+$', /repeated part "\(a\+\)\+" contains another repetition \("a\+"\)/],
  ['(a*)*b', /another repetition/],
  ['(?:\\s?\\w+)+$', /another repetition/],
  ['^(([a-z])+.)+[A-Z]([a-z])+$', /another repetition/],
  ['(x+x+)+y', /another repetition/],
  ['((a+))+', /another repetition/],
  ['(a|aa)+$', /alternatives that can start with the same character \("a" and "aa"\)/],
  ['(\\w|_)*!', /same character/],
  ['(.|\\s)*$', /same character/],
  ['(a|)+c', /same character/],
  ['([a-f]|[0-9a])+$', /same character/],
  ['(a)\\1+', /backreference \("\\\\1"\)/],
  ['(?<x>a)\\k<x>', /backreference/],
];

const SAFE = [
  'token=(\\S+)',
  '--password[= ](.*)',
  '^sk-[A-Za-z0-9]{20,}$',
  '(foo|bar)+',
  '(?:[a-z]+\\.)?example\\.com',
  '(ab){2}c+',
  '\\d{4}-\\d{2}-\\d{2}',
  '[(+*)]+',
  'a{2,}b',
  '(?:x|y|z)*end',
  '\\(a+\\)+',
];

for (const [pattern, why] of RISKY) {
  test(`refused: ${pattern}`, (t) => {
    new RegExp(pattern); // the patterns compile: the check is about cost, not syntax
    t.regex(backtrackingRisk(pattern) ?? '', why);
  });
}

test('allowed: common redaction patterns, repetition of fixed parts, distinct alternatives, escaped metacharacters', (t) => {
  for (const pattern of SAFE) t.is(backtrackingRisk(pattern), undefined, pattern);
});
