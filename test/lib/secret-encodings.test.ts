import test from 'ava';
import { MAX_BASE64 } from '../../lib/encoded-secrets.js';
import { noRedactionCounts, redactJson, type PayloadRedaction } from '../../lib/payload-redact.js';
import { maskCredentialsInUri, maskSecretsInBytes, maskSecretsInText } from '../../lib/secret-text.js';

/**
 * Credentials in an encoding that hides their shape: JSON escapes (`\u0041KIA…` is `AKIA…` to
 * every JSON reader) and base64 values. Masked like plain ones in JSON text (the bytes a cassette
 * stores) and in decoded strings (what a span or a parsed frame carries); only the run or value
 * that held the credential changes.
 */
const AWS = 'AKIAPLANTED0KEY12345';
const GITHUB = 'ghp_PlantedGithubToken0123456789';
const b64 = (s: string) => Buffer.from(s).toString('base64');
/** `s` with each of its ASCII letters written as a JSON \u escape. */
const escaped = (s: string) => s.replace(/[A-Za-z]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

test('a credential written with JSON \\u escapes is masked in the JSON text; the frame stays valid JSON with every other value', (t) => {
  const frame = `{"jsonrpc":"2.0","id":1,"params":{"key":"${escaped(AWS)}","gh":"x ${escaped('ghp_')}PlantedGithubToken0123456789 y","name":"caf\\u00e9"}}`;
  t.deepEqual((JSON.parse(frame) as { params: { key: string } }).params.key, AWS, 'the escapes spell the key');
  const { text, masked } = maskSecretsInText(frame);
  t.is(masked, 2);
  const back = JSON.parse(text) as { id: number; params: Record<string, string> };
  t.is(back.params.key, '[REDACTED]');
  t.is(back.params.gh, 'x [REDACTED] y');
  t.is(back.params.name, 'café');
  t.true(text.includes('"name":"caf\\u00e9"'), 'a run without a credential keeps its escapes');
});

test('an escape right before a key (a \\n in the JSON text) no longer hides its word boundary', (t) => {
  const { text, masked } = maskSecretsInText(JSON.stringify({ log: `line one\n${AWS} line two` }));
  t.is(masked, 1);
  t.is((JSON.parse(text) as { log: string }).log, 'line one\n[REDACTED] line two');
});

test('escapes inside JSON text inside a JSON string (a tool result) are decoded a level at a time', (t) => {
  const inner = `{"token":"${escaped(GITHUB)}"}`; // JSON text with escapes...
  const frame = JSON.stringify({ result: { content: [{ type: 'text', text: inner }] } }); // ...escaped again
  t.true(frame.includes('\\\\u0067'), 'the escape is itself escaped in the frame');
  const { text, masked } = maskSecretsInText(frame);
  t.is(masked, 1);
  const back = JSON.parse(text) as { result: { content: { text: string }[] } };
  t.deepEqual(JSON.parse(back.result.content[0]!.text), { token: '[REDACTED]' });
});

test('the bytes of a frame: only the escaped run changes, UTF-8 around it stays byte for byte', (t) => {
  const frame = Buffer.from(`{"a":"héllo ✓","k":"${escaped(AWS)}","z":"ünïcode"}`);
  const { data, masked } = maskSecretsInBytes(frame);
  t.is(masked, 1);
  t.is(data.toString('utf8'), '{"a":"héllo ✓","k":"[REDACTED]","z":"ünïcode"}');
});

test('a base64 value that decodes to a credential is masked whole, in either alphabet, with escaped slashes, and in JSON text inside a string', (t) => {
  const values = {
    aws: b64(`aws ${AWS}`),
    json: b64(JSON.stringify({ token: GITHUB })),
    url: Buffer.from(`?\u00ff>${GITHUB}`).toString('base64url'),
    bearer: b64('Bearer b3arerT0ken.Planted-abcdefgh1234'),
  };
  t.true(/[+/]/.test(b64(`?\u00ff>${GITHUB}`)) && !/[+/]/.test(values.url), 'the URL-safe alphabet differs here');
  const frame = JSON.stringify({ params: { ...values, text: JSON.stringify({ inner: values.aws }) } }).replace(/\//g, '\\/');
  const { text, masked } = maskSecretsInText(frame);
  t.is(masked, 5);
  const back = JSON.parse(text) as { params: Record<string, string> };
  for (const k of Object.keys(values)) t.is(back.params[k], '[REDACTED]', k);
  t.deepEqual(JSON.parse(back.params.text!), { inner: '[REDACTED]' });
});

test('base64 of a credential inside a decoded string value (a span, a parsed frame) is masked the same', (t) => {
  const r: PayloadRedaction = { paths: [], values: [], secrets: true };
  const out = redactJson(r, { arguments: { blob: b64(AWS), note: `k=${escaped(AWS)}` } }, noRedactionCounts());
  t.deepEqual(out, { arguments: { blob: '[REDACTED]', note: 'k=[REDACTED]' } });
});

test('what is not decoded, as docs/production-capture.md says: base64 past MAX_BASE64 characters, base64 inside a longer string; hex and ordinary values are left alone', (t) => {
  const long = b64(`${'x'.repeat(MAX_BASE64)} ${AWS}`);
  t.true(long.length > MAX_BASE64);
  const frame = JSON.stringify({
    long,
    within: `token=${b64(AWS)}`,
    hash: 'a3f5c9'.repeat(8),
    uuid: '123e4567-e89b-12d3-a456-426614174000',
    image: b64('\x89PNG\r\n'.repeat(20)),
  });
  t.deepEqual(maskSecretsInText(frame), { text: frame, masked: 0 });
});

test('a URI: the password of its userinfo, a user name long enough to be a token, secret-named parameters and credential shapes', (t) => {
  const cases: [string, string][] = [
    [
      'https://alice:S3cretPassw0rd@example.com/data?api_key=QueryKey123456&page=2',
      'https://alice:[REDACTED]@example.com/data?api_key=[REDACTED]&page=2',
    ],
    [`https://${GITHUB}@github.com/o/r.git`, 'https://[REDACTED]@github.com/o/r.git'],
    ['postgres://app:hunter2@db:5432/prod', 'postgres://app:[REDACTED]@db:5432/prod'],
    [
      'demo://resource/7?access_token=abc.def#id_token=xyz&state=s',
      'demo://resource/7?access_token=[REDACTED]#id_token=[REDACTED]&state=s',
    ],
    [`file:///keys/${AWS}.txt`, 'file:///keys/[REDACTED].txt'],
    ['ssh://git@github.com/o/r', 'ssh://git@github.com/o/r'],
    ['ui://widget/card.html?theme=dark', 'ui://widget/card.html?theme=dark'],
  ];
  for (const [uri, masked] of cases) t.is(maskCredentialsInUri(uri).text, masked, uri);
  const once = maskCredentialsInUri(cases[0]![0]).text;
  t.deepEqual(maskCredentialsInUri(once), { text: once, masked: 0 }, 'masking again changes nothing');
});
