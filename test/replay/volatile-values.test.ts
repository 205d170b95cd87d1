import test from 'ava';
import { normalise } from '../../replay/normalise.js';
import { BASE64_TEXT_MARK, base64Text, isTimeKey, normaliseScalar, normaliseText, TEXT_NORMALISERS } from '../../replay/volatile-values.js';

// Two instants far apart (another year, month, day, hour, minute and second, AM and PM), so
// every field of every format differs between them.
const A = new Date(Date.UTC(2026, 11, 1, 13, 24, 11, 123));
const B = new Date(Date.UTC(2031, 5, 9, 2, 5, 59, 7));

/** Every way JavaScript prints a date, as this Node prints it, in the locales servers run in. */
function formats(d: Date): Record<string, string> {
  const out: Record<string, string> = {
    toISOString: d.toISOString(),
    toString: d.toString(),
    toUTCString: d.toUTCString(),
    toDateString: d.toDateString(),
    toTimeString: d.toTimeString(),
    toLocaleString: d.toLocaleString(),
    toLocaleTimeString: d.toLocaleTimeString(),
    toLocaleDateString: d.toLocaleDateString(),
  };
  for (const locale of ['en-US', 'en-GB', 'en-CA', 'en-AU', 'de-DE', 'fr-FR', 'ru-RU', 'nl-NL', 'ja-JP', 'sv-SE']) {
    for (const timeZone of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
      out[`${locale} ${timeZone} toLocaleString`] = d.toLocaleString(locale, { timeZone });
      out[`${locale} ${timeZone} toLocaleTimeString`] = d.toLocaleTimeString(locale, { timeZone });
      if (locale !== 'en-CA' && locale !== 'sv-SE')
        out[`${locale} ${timeZone} toLocaleDateString`] = d.toLocaleDateString(locale, { timeZone });
    }
  }
  return out;
}

test('every Date format of two different instants normalises to the same text, and to a placeholder', (t) => {
  const a = formats(A);
  const b = formats(B);
  for (const name of Object.keys(a)) {
    t.not(a[name], b[name], `${name} differs before normalising`);
    t.is(normaliseText(`at ${a[name]}.`), normaliseText(`at ${b[name]}.`), `${name}: ${a[name]} vs ${b[name]}`);
    t.false(/\d/.test(normaliseText(a[name]!).replace(/<[a-z0-9-]+>/g, '')), `${name} leaves no digits: ${normaliseText(a[name]!)}`);
  }
});

test('the documented forms, each by its own normaliser', (t) => {
  const cases: Array<[string, string]> = [
    ['2026-12-01T13:24:11.000Z', '<timestamp>'],
    ['Tue Dec 01 2026 13:24:11 GMT+0000 (Coordinated Universal Time)', '<js-date>'],
    ['Wed Jul 01 2026 15:24:11 GMT+0200 (Central European Summer Time)', '<js-date>'],
    ['Tue, 01 Dec 2026 13:24:11 GMT', '<rfc2822-date>'],
    ['Tue, 1 Dec 2026 13:24:11 +0000', '<rfc2822-date>'],
    ['1 Dec 2026 13:24 EST', '<rfc2822-date>'],
    ['Tue Dec 01 2026', '<js-day>'],
    ['12/1/2026, 1:24:11 PM', '<locale-date>, <clock-time>'],
    ['2026-12-01, 1:24:11 p.m.', '<locale-date>, <clock-time>'],
    ['1:24:11 PM', '<clock-time>'],
    ['1:24:11\u202fPM', '<clock-time>'],
    ['1:24 PM', '<clock-time>'],
    ['13:24:11', '<clock-time>'],
    ['1:24:11 p.m.', '<clock-time>'],
    ['13:24:11 GMT+0530 (India Standard Time)', '<clock-time>'],
    ['1.12.2026', '<locale-date>'],
    ['2026/12/1', '<locale-date>'],
  ];
  for (const [input, want] of cases) t.is(normaliseText(input), want, input);
  // Every normaliser's documented example is normalised.
  for (const n of TEXT_NORMALISERS) for (const ex of n.example.split('; ')) t.not(normaliseText(ex), ex, `${n.name}: ${ex}`);
});

test('no false positives: durations, ratios, versions, addresses, phone numbers and money stay', (t) => {
  for (const s of [
    '1:2',
    '3:00 items',
    'took 12:30 minutes',
    'ratio 16:9',
    'Genesis 1:27',
    '1.2.3',
    'v10.5.2',
    'version 2.0.2026',
    'node 20.19.0',
    'fe80::12:34:56',
    '2001:db8:85a3::8a2e:370:7334',
    '2001:0db8:0000:0042:0000:8a2e:0370:7334',
    '12:34:56:78:9a:bc',
    '127.0.0.1:8080',
    '+1 (555) 123-4567',
    '555-123-4567',
    '+44 20 7946 0958',
    '$1,234.56',
    '€12.30',
    '1/2 cup',
    '/archive/2026/12/1/post',
    '13/13/2026',
    '2026-12-01',
    'release 2026-12-01',
    'size: 1764595451',
    'count=1234567890123',
    'size: 9999999999999',
    'timeout 30s',
    'every 5 min',
    'version 1.2.3s',
    'deadbeef',
    'abcdefabcdefabcdef',
    'pid file at /run/x.pid',
    '/home/ada/tmp/notes.txt',
    'Dec 2026',
    'score 10:20:30:40',
    '25:61:00',
  ]) {
    t.is(normaliseText(s), s, s);
  }
});

test('time-like keys: epoch seconds and milliseconds, as numbers and as numeric strings', (t) => {
  for (const key of [
    'createdAt',
    'created',
    'accessed',
    'modified',
    'mtime',
    'atime',
    'ctime',
    'birthtime',
    'mtimeMs',
    'birthtimeMs',
    'timestamp',
    'time',
    'date',
    'expiresAt',
    'expires',
    'updated_at',
    'lastModified',
    'last-modified',
    'startTime',
    'ts',
    'dateCreated',
    'epochMs',
  ]) {
    t.true(isTimeKey(key), key);
    t.is(normaliseScalar(1764595451, key), '<epoch>', `${key} seconds`);
    t.is(normaliseScalar(1764595451.25, key), '<epoch>', `${key} fractional seconds`);
    t.is(normaliseScalar(1764595451123, key), '<epoch>', `${key} ms`);
    t.is(normaliseScalar('1764595451123', key), '<epoch>', `${key} ms as a string`);
  }
  for (const key of ['createdBy', 'timeout', 'timeZone', 'expires_in', 'count', 'size', 'id', 'times', 'phone', 'used']) {
    t.false(isTimeKey(key), key);
    // Whole epoch seconds need a time-like key: ten digits are too often a phone number or an id.
    t.is(normaliseScalar(1764595451, key), 1764595451, key);
    t.is(normaliseScalar('1764595451', key), '1764595451', key);
    // Epoch milliseconds between 2015 and 2040 are a clock under any key.
    t.is(normaliseScalar(1764595451123, key), '<epoch-ms>', key);
    t.is(normaliseScalar(1234567890123, key), 1234567890123, `${key}: 2009 is outside the plausible range`);
  }
  for (const key of ['firstUsed', 'lastUsed', 'lastRun', 'jobStarted']) t.true(isTimeKey(key), key);
  // Out of the epoch ranges: small counts, and the gap between seconds (to 2100) and ms (from 2000).
  t.is(normaliseScalar(42, 'createdAt'), 42);
  t.is(normaliseScalar(5551234567, 'createdAt'), 5551234567);
  t.is(normaliseScalar('12', 'date'), '12');
});

test('the same values in text lines: get_file_info, key: value logs and JSON printed as text', (t) => {
  // server-filesystem's get_file_info prints `${key}: ${value}` with Date values (Date.toString).
  const info = (d: Date) =>
    ['size: 5', `created: ${d}`, `modified: ${d}`, `accessed: ${d}`, 'isDirectory: false', 'isFile: true', 'permissions: 644'].join('\n');
  t.is(normaliseText(info(A)), normaliseText(info(B)));
  t.is(normaliseText(info(A)).split('\n')[1], 'created: <js-date>');
  t.is(normaliseText(`Modified: ${A.toISOString()}`), 'Modified: <timestamp>');
  t.is(
    normaliseText(JSON.stringify({ createdAt: A.getTime(), mtime: String(B.getTime()), size: 1764595451 })),
    '{"createdAt":<epoch>,"mtime":"<epoch>","size":1764595451}',
  );
  t.is(normaliseText(`timestamp=${Math.floor(A.getTime() / 1000)} count=3`), 'timestamp=<epoch> count=3');
});

test('base64 text is decoded and normalised; binary data and plain words are left as they are', (t) => {
  // server-everything's dynamic blob resource: Buffer.from(`... created at ${toLocaleTimeString()}`).
  const blob = (d: Date) => Buffer.from(`Resource 1: This is a base64 blob created at ${d.toLocaleTimeString()}`).toString('base64');
  t.not(blob(A), blob(B));
  t.is(normaliseScalar(blob(A), 'blob'), normaliseScalar(blob(B), 'blob'));
  t.is(normaliseScalar(blob(A), 'blob'), `${BASE64_TEXT_MARK}Resource 1: This is a base64 blob created at <clock-time>`);
  // A real change in the text still shows, readably.
  t.not(
    normaliseScalar(Buffer.from('Resource 2: x').toString('base64'), 'blob'),
    normaliseScalar(Buffer.from('Resource 3: x').toString('base64'), 'blob'),
  );
  // A content item's `data` holding text (an embedded text file) is decoded too.
  t.is(
    normaliseScalar(Buffer.from(`log line at ${A.toString()}\n`).toString('base64'), 'data'),
    `${BASE64_TEXT_MARK}log line at <js-date>\n`,
  );
  // A PNG, invalid UTF-8, control characters, non-canonical or short base64: compared as they are.
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]).toString('base64');
  t.is(normaliseScalar(png, 'data'), png);
  t.is(base64Text(Buffer.from([0xc3, 0x28, 0x41, 0x42, 0x43, 0x44]).toString('base64')), undefined);
  t.is(base64Text(Buffer.from('abc\u0000defgh').toString('base64')), undefined);
  t.is(base64Text('TWFu'), undefined, 'too short to tell from a word');
  t.is(normaliseScalar('hello world', 'data'), 'hello world');
  // Only under `blob` and `data`: a `text` that happens to be base64 is text.
  t.is(normaliseScalar(blob(A), 'text'), blob(A));
});

test('through normalise: a resources/read result and a get_file_info result at two times are equal', (t) => {
  const read = (d: Date) => ({
    jsonrpc: '2.0',
    id: 4,
    result: {
      contents: [
        {
          uri: 'demo://resource/dynamic/text/1',
          mimeType: 'text/plain',
          text: `Resource 1: This is a plaintext resource created at ${d.toLocaleTimeString()}`,
        },
        {
          uri: 'demo://resource/dynamic/blob/1',
          mimeType: 'text/plain',
          blob: Buffer.from(`Resource 1: This is a base64 blob created at ${d.toLocaleTimeString()}`).toString('base64'),
        },
      ],
    },
  });
  t.deepEqual(normalise(read(A)), normalise(read(B)));
  const stat = (d: Date) => ({
    result: { structuredContent: { created: d.toISOString(), mtimeMs: d.getTime(), atime: String(d.getTime()), size: 12 } },
  });
  t.deepEqual(normalise(stat(A)), normalise(stat(B)));
  t.notDeepEqual(normalise(stat(A)), normalise({ result: { structuredContent: { ...stat(A).result.structuredContent, size: 13 } } }));
});

test('the field shapes: file-name stamps, epoch numbers anywhere, pids, durations, hex ids, temp paths', (t) => {
  const cases: Array<[string, string]> = [
    ['page-2026-12-07T03-59-36-387Z.yml', 'page-<file-timestamp>.yml'],
    ['log_2026_12_07_03_59_36.txt', 'log_<file-timestamp>.txt'],
    ['trace-20261207T035936Z.zip', 'trace-<file-timestamp>.zip'],
    ['2026-13-07T03-59-36', '2026-13-07T03-59-36'],
    ['search_1_1796616453975', 'search_1_<epoch-ms>'],
    ['"firstUsed": 1796616453824', '"firstUsed": <epoch>'],
    ['at 1796616453.975 by', 'at <epoch> by'],
    ['Process started with PID 1724.', 'Process started with PID <pid>.'],
    ['{"pid": 1685, "ok": true}', '{"pid": <pid>, "ok": true}'],
    ['Runtime: 9ms', 'Runtime: <duration>'],
    ['took 12.5 ms, then 1.25s', 'took <duration>, then <duration>'],
    ['request 3f9a0c2e7b1d4e6f8a9b done', 'request <hex-id> done'],
    ['wrote /tmp/mcp-abc123/out.txt', 'wrote <temp-dir>/out.txt'],
    ['C:\\Users\\ada\\AppData\\Local\\Temp\\x1y2\\out.txt', '<temp-dir>\\out.txt'],
  ];
  for (const [input, want] of cases) t.is(normaliseText(input), want, input);
  t.is(normaliseScalar(1685, 'pid'), '<pid>');
  t.is(normaliseScalar(1796616453824, 'firstUsed'), '<epoch>');
  t.is(normaliseScalar(1796616453824, 'anything'), '<epoch-ms>');
});

test('every masked token is noted with its shape and only the part that varies', (t) => {
  const masks: Array<{ shape: string; value: string }> = [];
  normaliseText('PID 1724 wrote page-2026-12-07T03-59-36-387Z.yml in 9ms', masks);
  t.deepEqual(masks, [
    { shape: 'file-timestamp', value: '2026-12-07T03-59-36-387Z' },
    { shape: 'pid', value: '1724' },
    { shape: 'duration', value: '9ms' },
  ]);
});
