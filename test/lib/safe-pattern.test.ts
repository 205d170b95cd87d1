import test from 'ava';
import { backtrackingRisk } from '../../lib/safe-pattern.js';

const RISKY: [string, RegExp][] = [
  ['(a+)+$', /repeated part "\(a\+\)\+" contains a repetition \("a\+"\) that can match what follows it/],
  ['(a*)*b', /contains a repetition/],
  ['(?:\\s?\\w+)+$', /contains a repetition/],
  ['^(([a-z])+.)+[A-Z]([a-z])+$', /contains a repetition/],
  ['(x+x+)+y', /contains a repetition/],
  ['((a+))+', /contains a repetition/],
  ['(a|aa)+$', /alternatives that can start with the same character \("a" and "aa"\)/],
  ['(\\w|_)*!', /same character/],
  ['(.|\\s)*$', /same character/],
  ['(a|)+c', /same character/],
  ['([a-f]|[0-9a])+$', /same character/],
  ['(a)\\1+', /backreference \("\\\\1"\)/],
  ['(a{2,3})+$', /contains a repetition/],
  ['(a+b?)+$', /contains a repetition/],
  [`${'('.repeat(60)}a${')'.repeat(60)}`, /nests groups more than 50 deep/],
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
  '^[a-z]+(-[a-z]+)*$',
  '(a+b)+',
  '(\\d+\\.)+\\d+',
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
