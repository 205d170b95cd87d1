import test from 'ava';
import { headerOf, parseHeaderOptions, storedHeader } from '../../lib/http-headers.js';

test('--header: names lowercased (the last of two casings wins), name and value trimmed, an empty value kept', (t) => {
  t.deepEqual(parseHeaderOptions(['Authorization: Bearer a', ' X-Trace :  1 2  ', 'AUTHORIZATION:Bearer b', 'X-Empty:']), {
    authorization: 'Bearer b',
    'x-trace': '1 2',
    'x-empty': '',
  });
  t.deepEqual(parseHeaderOptions([]), {});
});

test('--header: no colon, no name, or a name that is not an HTTP token is one usage error (exit 2)', (t) => {
  for (const bad of ['nocolon', ': value', 'Bad Name: x', 'a(b): x', 'X-A: b\nc']) {
    const err = t.throws(() => parseHeaderOptions(['Ok: 1', bad]));
    t.is((err as { code?: string }).code, 'MCPC_USAGE', bad);
    t.is(err?.message, `--header ${JSON.stringify(bad)} is not "Name: value"`);
  }
});

test('storedHeader reads the key as stored; headerOf matches any casing; both give the first of a repeated header', (t) => {
  const headers = { 'mcp-session-id': ['a', 'b'], 'Content-Type': 'text/event-stream' };
  t.is(storedHeader(headers, 'mcp-session-id'), 'a');
  t.is(storedHeader(headers, 'content-type'), undefined);
  t.is(storedHeader(undefined, 'content-type'), undefined);
  t.is(headerOf(headers, 'content-type'), 'text/event-stream');
  t.is(headerOf(headers, 'mcp-session-id'), 'a');
  t.is(headerOf(headers, 'accept'), undefined);
  t.is(headerOf(undefined, 'accept'), undefined);
});
