/**
 * Token templates (replay/templates.ts): learned from the values a string took, they keep every
 * literal token and check each hole's class, and they refuse a change wider than one token.
 */
import test from 'ava';
import { diffTokens, learnTemplate, matchTemplate, parseTemplate, tokenize } from '../../replay/templates.js';
import { normalise, templatePattern } from '../../replay/normalise.js';

const learned = (values: string[]) => {
  const l = learnTemplate(values);
  if ('refused' in l) throw new Error(l.refused);
  return l.template;
};

test('a pid and a counter become holes of their class; the words around them stay literal', (t) => {
  const tpl = learned(['Process started with PID <pid> (job 17, search_1_xyz)', 'Process started with PID <pid> (job 18, search_1_xy9)']);
  t.is(tpl.source, 'Process started with PID <pid> (job {{int}}, search_1_{{alnum}})');
  t.truthy(matchTemplate(tpl, 'Process started with PID <pid> (job 99, search_1_zz9)'));
  t.falsy(matchTemplate(tpl, 'Process started with PID <pid> (job x9, search_1_zz9)'), 'an int hole takes digits only');
  t.falsy(matchTemplate(tpl, 'Process stopped with PID <pid> (job 99, search_1_zz9)'), 'a literal word that changed is a difference');
});

test('a token present in some runs only is an optional hole; a literal {{ survives storage', (t) => {
  const tpl = learned(['id={{x}} job-5 items', 'id={{x}} job- items']);
  t.is(tpl.source, 'id={{{{x}} job-{{int?}} items');
  const again = parseTemplate(tpl.source)!;
  t.deepEqual(again.parts, tpl.parts);
  t.truthy(matchTemplate(again, 'id={{x}} job-12 items'));
  t.truthy(matchTemplate(again, 'id={{x}} job- items'));
});

test('refused: a change across words, more than one word in a row, or beyond the diff bound', (t) => {
  const url = learnTemplate(['Page URL: https://a.test/next', 'Page URL: about:blank']);
  t.regex('refused' in url ? url.refused : 'learned', /more than a token changed/);
  t.true('refused' in learnTemplate(['the quick fox', 'a slow dog']));
  t.true('refused' in learnTemplate(['typo in teh text', 'typo in the text here']));
  const long = Array.from({ length: 2000 }, (_, i) => `w${i}`).join(' ');
  const other = Array.from({ length: 2000 }, (_, i) => `v${i}`).join(' ');
  t.is(diffTokens(tokenize(long), tokenize(other), 256), undefined, 'more edits than the bound: no diff');
});

test('diffTokens: the regions that differ, in token positions', (t) => {
  t.deepEqual(diffTokens(tokenize('a 1 b 2 c'), tokenize('a 7 b 2 c')), [[2, 3, 2, 3]]);
  t.deepEqual(diffTokens(tokenize('a b'), tokenize('a b')), []);
  t.deepEqual(diffTokens(tokenize('a b'), tokenize('a x b')), [[2, 2, 2, 4]]);
});

test('normalise: a string that matches its calibrated template is skipped and its hole values noted; one that does not is compared', (t) => {
  const p = templatePattern('/result/text', 'PID <pid> used {{int}} MB')!;
  const volatile = new Set<string>();
  const masks = new Map();
  t.deepEqual(normalise({ result: { text: 'PID 7 used 12 MB' } }, [p], volatile, masks), { result: { text: '<calibrated>' } });
  t.deepEqual([...volatile], ['/result/text']);
  t.deepEqual(masks.get('/result/text'), [
    { shape: 'pid', value: '7' },
    { shape: 'calibrated', value: '12' },
  ]);
  t.deepEqual(normalise({ result: { text: 'PID 7 used 12 GB' } }, [p]), { result: { text: 'PID <pid> used 12 GB' } });
});

test('normalise: text holding JSON is compared as JSON (key order aside, keys naming their values)', (t) => {
  const a = normalise({ text: JSON.stringify({ SHLVL: '1', pid: 1685, firstUsed: 1796616453824, name: 'x' }) });
  const b = normalise({ text: JSON.stringify({ name: 'x', firstUsed: 1796616999999, pid: 1702, SHLVL: '1' }) });
  t.deepEqual(a, b);
  t.deepEqual(a, { text: { '{json}': { SHLVL: '1', pid: '<pid>', firstUsed: '<epoch>', name: 'x' } } });
  t.deepEqual(normalise({ text: '{not json' }), { text: '{not json' });
});

test('a decimal figure is one token: "18.54 MB" and "19.01 MB" learn {{number}}, not a hole after the dot', (t) => {
  t.is(learned(['"heapUsed": "18.54 MB"', '"heapUsed": "18.87 MB"']).source, '"heapUsed": "{{number}} MB"');
  t.truthy(matchTemplate(learned(['rss 76.24 MB', 'rss 73.00 MB']), 'rss 101.5 MB'));
  // Versions and addresses stay runs of their parts.
  t.deepEqual(tokenize('v1.2.3 at 127.0.0.1'), ['v1', '.', '2', '.', '3', ' ', 'at', ' ', '127', '.', '0', '.', '0', '.', '1']);
});

test('a printed environment: the shell and terminal variables (SHLVL, NO_COLOR…) are not compared, and are noted', (t) => {
  const env = (extra: Record<string, string>) => JSON.stringify({ PATH: '/usr/bin', HOME: '/home/ada', LANG: 'C', ...extra });
  const masks = new Map();
  const a = normalise({ text: env({ SHLVL: '1' }) });
  const b = normalise({ text: env({ NO_COLOR: '1', SHLVL: '2' }) }, [], undefined, masks);
  t.deepEqual(a, b);
  t.deepEqual(masks.get('/text/{json}/NO_COLOR'), [{ shape: 'env-noise', value: '1' }]);
  // Not an environment (lower-case keys, no PATH): every key is compared.
  t.notDeepEqual(
    normalise({ text: JSON.stringify({ path: 'a', SHLVL: 1, x: 2 }) }),
    normalise({ text: JSON.stringify({ path: 'a', SHLVL: 2, x: 2 }) }),
  );
  // A real change in the environment still shows.
  t.notDeepEqual(normalise({ text: env({ API_URL: 'https://a' }) }), normalise({ text: env({ API_URL: 'https://b' }) }));
});
