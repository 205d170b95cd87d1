import test from 'ava';
import { classify, frameToMessage, messageBytes } from '../../lib/message.js';

const info = { seq: 1, t: 0, direction: 'server-to-client' as const, channel: 'stdout' as const, terminated: true };

test('classify tells JSON-RPC kinds apart', (t) => {
  t.is(classify({ jsonrpc: '2.0', id: 1, method: 'x' }), 'request');
  t.is(classify({ jsonrpc: '2.0', method: 'x' }), 'notification');
  t.is(classify({ jsonrpc: '2.0', id: 1, result: {} }), 'response');
  t.is(classify({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' } }), 'error');
  t.is(classify([{ jsonrpc: '2.0', method: 'x' }]), 'batch');
  t.is(classify({ id: 1, result: {} }), 'non-jsonrpc');
  t.is(classify(42), 'non-jsonrpc');
});

test('a compact JSON frame is stored as json only, and its bytes are rebuilt exactly', (t) => {
  const raw = '{"result":{"a":1},"jsonrpc":"2.0","id":0}';
  const m = frameToMessage(Buffer.from(raw), info);
  t.is(m.kind, 'response');
  t.is(m.raw, undefined);
  t.deepEqual(m.json, { result: { a: 1 }, jsonrpc: '2.0', id: 0 });
  t.is(messageBytes(m).toString(), raw);
});

test('frames that JSON.stringify cannot rebuild keep their raw text', (t) => {
  for (const raw of [
    '{ "jsonrpc": "2.0", "method": "x" }',
    '{"jsonrpc":"2.0","method":"x"}\r',
    '{"n":12345678901234567890}',
    '{"a":1.0}',
  ]) {
    const m = frameToMessage(Buffer.from(raw), info);
    t.is(m.raw, raw);
    t.not(m.json, undefined);
    t.is(messageBytes(m).toString(), raw);
  }
});

test('non-JSON text and invalid UTF-8 are kept as such', (t) => {
  const text = frameToMessage(Buffer.from('Server started on stdio'), info);
  t.is(text.kind, 'text');
  t.is(text.raw, 'Server started on stdio');
  t.is(text.json, undefined);
  const bytes = Buffer.from([0xff, 0xfe, 0x41, 0xc3, 0x28]);
  const bin = frameToMessage(bytes, info);
  t.is(bin.kind, 'text');
  t.is(bin.rawBase64, bytes.toString('base64'));
  t.true(messageBytes(bin).equals(bytes));
});

test('stderr lines are text even when they look like JSON, and unterminated frames are marked', (t) => {
  const m = frameToMessage(Buffer.from('{"level":30}'), { ...info, channel: 'stderr', terminated: false });
  t.is(m.kind, 'text');
  t.is(m.raw, '{"level":30}');
  t.true(m.unterminated);
});
