import test from 'ava';
import {
  deepStandIn,
  DEEP_TEXT,
  MAX_JSON_DEPTH,
  messageText,
  shallowEnvelope,
  stringifyDeep,
  textTooDeep,
  valueTooDeep,
} from '../../lib/json-depth.js';
import { frameToMessage, messageBytes } from '../../lib/message.js';

const nested = (n: number, leaf = '0') => '['.repeat(n) + leaf + ']'.repeat(n);
const info = { seq: 1, t: 0, direction: 'server-to-client', channel: 'stdout', terminated: true } as const;

test('the depth limit is exact, brackets inside strings do not count, and the scans agree', (t) => {
  for (const [text, deep] of [
    [nested(MAX_JSON_DEPTH), false],
    [nested(MAX_JSON_DEPTH + 1), true],
    [`["${'['.repeat(5000)}"]`, false],
    [`["\\"${'{'.repeat(5000)}"]`, false],
    [`{"a":${nested(MAX_JSON_DEPTH)}}`, true],
  ] as const) {
    t.is(textTooDeep(text), deep, text.slice(0, 20));
    t.is(valueTooDeep(JSON.parse(text)), deep);
  }
});

test('stringifyDeep is JSON.stringify for what JSON.parse makes, at any depth', (t) => {
  for (const text of ['{"a":[1,2.5,-3e-9,true,null,{}],"b":"é\\n\\u0001","__proto__":{"x":[]}}', '[]', '"s"', '12', 'null']) {
    t.is(stringifyDeep(JSON.parse(text)), JSON.stringify(JSON.parse(text)));
  }
  const deep = `{"a":${nested(100_000, '"x"')}}`;
  t.is(stringifyDeep(JSON.parse(deep)), deep);
});

test('a too-deep frame keeps its bytes in raw and only its top-level scalars in json', (t) => {
  const text = `{"jsonrpc":"2.0","id":7,"result":${nested(100_000)},"__proto__":1}`;
  const m = frameToMessage(Buffer.from(text), info);
  t.like(m, { kind: 'response', tooDeep: true, raw: text });
  t.deepEqual(Object.keys(m.json as object), ['jsonrpc', 'id', '__proto__']);
  t.true(messageBytes(m).equals(Buffer.from(text)));
  t.is(frameToMessage(Buffer.from(nested(MAX_JSON_DEPTH)), info).tooDeep, undefined);
  t.deepEqual(shallowEnvelope([1]), undefined);
});

test('a stand-in compares ids aside and gives the wire text back with the id it is sent with', (t) => {
  const a = deepStandIn(`{"jsonrpc":"2.0","id":1,"result":${nested(1000, '"a"')}}`);
  const b = deepStandIn(`{"jsonrpc":"2.0","id":9,"result":${nested(1000, '"a"')}}`);
  t.is(a[DEEP_TEXT], b[DEEP_TEXT]);
  t.is(messageText({ ...a, id: 5 }), `{"jsonrpc":"2.0","id":5,"result":${nested(1000, '"a"')}}`);
  t.is(messageText({ id: 1 }), '{"id":1}');
});
