import test from 'ava';
import { noRedactionCounts, parseRedactPath, redactJson, type PayloadRedaction } from '../../lib/payload-redact.js';
import { KeyBlockLines, maskSecretsInBytes, maskSecretsInText } from '../../lib/secret-text.js';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----';

test('every well-known shape is masked in a JSON frame, which stays valid JSON with the same other values', (t) => {
  const message = {
    jsonrpc: '2.0',
    id: 7,
    params: {
      auth: 'Bearer abc.DEF_ghi-123/xyz==',
      jwt: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl',
      aws: 'id AKIAIOSFODNN7EXAMPLE here',
      awsSecret: 'aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      openai: 'sk-proj-abcdefghijklmnop1234',
      anthropic: 'sk-ant-api03-abcdefghijklmnopqrstu',
      github: 'ghp_abcdefghijklmnopqrstuvwxyz0123',
      slack: 'xoxb-1234567890-abcdef',
      key: KEY,
      plain: 'nothing secret: sk- alone, Bearer, eyJ',
    },
  };
  // As written with escaped slashes, as some servers do.
  const text = JSON.stringify(message).replace(/\//g, '\\/');
  const { text: out, masked } = maskSecretsInText(text);
  t.is(masked, 9);
  const back = JSON.parse(out) as typeof message;
  t.is(back.params.auth, 'Bearer [REDACTED]');
  t.is(back.params.jwt, '[REDACTED]');
  t.is(back.params.aws, 'id [REDACTED] here');
  t.is(back.params.awsSecret, 'aws_secret_access_key=[REDACTED]');
  for (const k of ['openai', 'anthropic', 'github', 'slack', 'key'] as const) t.is(back.params[k], '[REDACTED]', k);
  t.is(back.params.plain, message.params.plain);
  t.is(back.id, 7);
});

test('bytes that hold no secret come back as the same buffer; other bytes are untouched (latin1 round trip)', (t) => {
  const data = Buffer.from('{"text":"héllo \u{1F600}"}\r');
  t.is(maskSecretsInBytes(data).data, data);
  const mixed = Buffer.concat([Buffer.from('é '), Buffer.from('sk-abcdefghijklmnopq'), Buffer.from([0xff, 0x0a])]);
  t.deepEqual(maskSecretsInBytes(mixed).data, Buffer.concat([Buffer.from('é [REDACTED]'), Buffer.from([0xff, 0x0a])]));
});

test('a private key block over several text lines is masked line by line', (t) => {
  const block = new KeyBlockLines();
  const lines = [
    'log: key follows',
    'x -----BEGIN RSA PRIVATE KEY-----',
    'MIIEpAIBAAKCAQEA',
    'abc==',
    '-----END RSA PRIVATE KEY----- done',
    'after',
  ];
  t.deepEqual(
    lines.map((l) => block.line(l).text),
    ['log: key follows', 'x [REDACTED]', '[REDACTED]', '[REDACTED]', '[REDACTED] done', 'after'],
  );
});

test('--redact-path: a pointer with * for any member or index; --redact-value masks its group or the match', (t) => {
  const r: PayloadRedaction = {
    paths: [parseRedactPath('/params/arguments/password'), parseRedactPath('/result/content/*/text'), parseRedactPath('/params/*/token')],
    values: [/cust-(\d+)/, /ssn \d{3}-\d{2}-\d{4}/],
    secrets: true,
  };
  const counts = noRedactionCounts();
  t.deepEqual(
    redactJson(
      r,
      { params: { arguments: { password: { nested: 1 }, user: 'cust-42 ssn 123-45-6789' }, a: { token: 5 }, b: { token: 'x' } } },
      counts,
    ),
    {
      params: {
        arguments: { password: '[REDACTED]', user: 'cust-[REDACTED] [REDACTED]' },
        a: { token: '[REDACTED]' },
        b: { token: '[REDACTED]' },
      },
    },
  );
  t.deepEqual(redactJson(r, { result: { content: [{ type: 'text', text: 'a' }, { type: 'image' }] } }, counts), {
    result: { content: [{ type: 'text', text: '[REDACTED]' }, { type: 'image' }] },
  });
  t.deepEqual(counts, { secret: 0, path: 4, value: 2 });
});
