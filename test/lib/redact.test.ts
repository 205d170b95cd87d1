import test from 'ava';
import { MASK, redactArgv } from '../../lib/redact.js';

test('secret-looking flags, assignments, URLs and token shapes are masked', (t) => {
  t.deepEqual(
    redactArgv([
      'node',
      'srv.js',
      '--token=abc',
      '--api-key',
      'xyz',
      '--port',
      '3000',
      'GITHUB_TOKEN=ghp_x',
      'https://u:pw@host/mcp?access_token=t1&x=1',
      'sk-abcdefghijklmnop',
      '--verbose',
    ]),
    [
      'node',
      'srv.js',
      `--token=${MASK}`,
      '--api-key',
      MASK,
      '--port',
      '3000',
      `GITHUB_TOKEN=${MASK}`,
      `https://u:${encodeURIComponent(MASK)}@host/mcp?access_token=${encodeURIComponent(MASK)}&x=1`,
      MASK,
      '--verbose',
    ],
  );
});

test('ordinary arguments are left exactly as they are', (t) => {
  const argv = ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/home/me/projects', '--root=/tmp', 'https://example.com/mcp'];
  t.deepEqual(redactArgv(argv), argv);
});

test('--redact-arg patterns mask a capture group or the whole argument', (t) => {
  t.deepEqual(redactArgv(['--db', 'postgres://u@h/db?pw=1', 'customer-4711'], { patterns: [/^customer-(\d+)$/, /^postgres:/] }), [
    '--db',
    MASK,
    `customer-${MASK}`,
  ]);
});
