import test from 'ava';
import { join } from 'node:path';
import { everythingServer, exampleServer, node } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp.js';
import { readSarif, runCheck } from './support.js';

// The committed example cassettes checked against the real servers that recorded them: the
// reference server-everything and the official v2 SDK example server.
const examples = 'cassettes/examples';

test('server-everything and the SDK example server pass against their own cassettes', async (t) => {
  const everything = await runCheck(t, [
    '--cassettes',
    `${examples}/server-everything.cassette.json`,
    '--',
    node,
    everythingServer,
    'stdio',
  ]);
  t.is(everything.code, 0, everything.stdout.toString() + everything.stderr);
  t.regex(everything.stdout.toString(), /✅ passed: 1 cassette/);
  const example = await runCheck(t, ['--cassettes', `${examples}/example-server.cassette.json`, '--', node, exampleServer, 'stdio']);
  t.is(example.code, 0, example.stdout.toString() + example.stderr);
});

test("a cassette checked against another server's build: breaking changes and violations located in the committed cassette", async (t) => {
  const sarif = join(tempDir(t), 'wrong.sarif');
  const r = await runCheck(t, [
    '--cassettes',
    `${examples}/example-server.cassette.json`,
    '--sarif',
    sarif,
    '--',
    node,
    everythingServer,
    'stdio',
  ]);
  t.is(r.code, 1, r.stderr);
  const results = readSarif(t, sarif);
  t.true(results.some((x) => x.ruleId.startsWith('replay/') && x.level === 'error'));
  t.true(results.every((x) => x.locations[0]!.physicalLocation.artifactLocation.uri === `${examples}/example-server.cassette.json`));
  t.true(
    results.every((x) => x.locations[0]!.physicalLocation.region.startLine > 1),
    'each at its recorded message',
  );
});
