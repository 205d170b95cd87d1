import test from 'ava';
import { renderConsole, renderReport } from '../../replay/index.js';
import { showChange } from '../../replay/reports.js';
import { mdCode } from '../../lib/report-escape.js';
import type { Difference, ReplayResult } from '../../replay/index.js';

function resultWith(differences: Difference[]): ReplayResult {
  return {
    cassette: 'fixtures/x.cassette.json',
    target: { command: ['node', 'server.js'] },
    startedAt: '2026-12-01T13:24:11.000Z',
    durationMs: 5,
    outcome: 'breaking',
    summary: {
      sessions: 1,
      interactions: 1,
      same: 0,
      breaking: 1,
      changed: 0,
      warning: 0,
      compatible: 0,
      skipped: 0,
      volatileSkipped: 0,
      differences: { breaking: 1, changed: 0, warning: 0, compatible: 0 },
    },
    sessions: [
      {
        index: 1,
        id: 's1',
        transport: 'stdio',
        outcome: 'breaking',
        interactions: [{ seq: 3, method: 'tools/call', name: 'read_file', outcome: 'breaking', differences }],
      },
    ],
  };
}

// A 2000-character text changed at character 1230: the first 150 characters are equal.
const digits = Array.from({ length: 2000 }, (_, i) => String(i % 10)).join('');
const recorded = digits;
const live = `${digits.slice(0, 1230)}CHANGED${digits.slice(1237)}`;
const change: Difference = {
  verdict: 'breaking',
  kind: 'result-content-changed',
  path: '/result/content/0/text',
  message: 'the text changed',
  recorded,
  live,
};
// From 60 characters before the difference, 160 characters of each, cut on both sides.
const recWindow = `…${recorded.slice(1170, 1330)}…`;
const liveWindow = `…${live.slice(1170, 1330)}…`;

test('a long string is shown around its first difference, aligned, with the offset', (t) => {
  t.deepEqual(showChange(recorded, live), { recorded: recWindow, live: liveWindow, offset: 1230, column: 61 });
  t.true(liveWindow.includes('CHANGED'));
  const text = renderConsole(resultWith([change]), false);
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.includes('result-content-changed'));
  t.is(lines[at + 1], `          - ${recWindow}`);
  t.is(lines[at + 2], `          + ${liveWindow}`);
  // The caret sits under the first differing character of both lines.
  t.is(lines[at + 3], `          ${' '.repeat(2 + 61)}^ differs after 1230 equal characters`);
  t.is(lines[at + 2]!.indexOf('CHANGED'), lines[at + 3]!.indexOf('^'));
});

test('markdown rows carry the recorded and live windows and the offset', (t) => {
  const md = renderReport('markdown', resultWith([change]));
  t.true(md.includes('| session | interaction | verdict | kind | what changed | recorded | live |'));
  t.true(
    md.includes(
      `| 1 | #3 \`tools/call read_file\` | **breaking** | \`result-content-changed\` | the text changed (differs after 1230 equal characters) | \`${recWindow}\` | \`${liveWindow}\` |`,
    ),
    md,
  );
});

test('objects are windowed on their compact JSON text the same way', (t) => {
  const list = Array.from({ length: 80 }, (_, i) => i);
  const a = { list };
  const b = { list: list.map((n) => (n === 50 ? 'fifty' : n)) };
  const ja = JSON.stringify(a);
  const jb = JSON.stringify(b);
  const offset = ja.indexOf(',50,') + 1;
  t.is(jb.slice(offset, offset + 7), '"fifty"');
  t.deepEqual(showChange(a, b), { recorded: `…${ja.slice(offset - 60)}`, live: `…${jb.slice(offset - 60)}`, offset, column: 61 });
  // Short values are shown whole, as before.
  t.deepEqual(showChange({ n: 1 }, { n: 2 }), { recorded: '{"n":1}', live: '{"n":2}' });
  t.deepEqual(showChange(undefined, 'x'), { recorded: '(absent)', live: '"x"' });
});

test('a string window is JSON-escaped and never splits a surrogate pair', (t) => {
  // The difference at 201 puts 60 characters before it inside an emoji (a low surrogate at 141).
  const a = `${'😀'.repeat(100)}\nb`;
  const b = `${'😀'.repeat(100)}\nc`;
  const c = showChange(a, b);
  t.is(c.offset, 201);
  t.is(c.recorded, `…${'😀'.repeat(30)}\\nb`);
  t.is(c.live, `…${'😀'.repeat(30)}\\nc`);
});

test('markdown escaping: pipes, backticks and line breaks stay inside their cell', (t) => {
  t.is(mdCode('a|b'), '`a\\|b`');
  t.is(mdCode('say `hi`'), '`` say `hi` ``');
  t.is(mdCode('x ``` y'), '````x ``` y````');
  t.is(mdCode('one\ntwo\r\nthree'), '`one two three`');
  const md = renderReport(
    'markdown',
    resultWith([
      {
        verdict: 'warning',
        kind: 'tool-description-changed',
        path: '/result/tools/0/description',
        message: 'description | changed\nhere',
        recorded: 'old | `text`',
        live: 'new\ntext',
      },
    ]),
  );
  const row = md.split('\n').find((l) => l.includes('tool-description-changed'))!;
  t.is(
    row,
    '| 1 | #3 `tools/call read_file` | **warning** | `tool-description-changed` | description \\| changed here | ``"old \\| `text`"`` | `"new\\ntext"` |',
  );
  // Exactly seven cells: no unescaped pipe split the row.
  t.is(row.split(/(?<!\\)\|/).length - 2, 7);
  const added = renderReport(
    'markdown',
    resultWith([{ verdict: 'compatible', kind: 'tool-added', path: '/result/tools/1', message: 'tool added', live: { name: 'x' } }]),
  );
  t.true(added.includes('| tool added | *absent* | `{"name":"x"}` |'));
});

test('JUnit failures carry the same windows', (t) => {
  const xml = renderReport('junit', resultWith([change]));
  t.true(xml.includes('differs after 1230 equal characters'));
  t.true(xml.includes('CHANGED'));
});
