import test from 'ava';
import { runExampleScenario } from '../../../recorder/demo/example-client.js';
import { exampleServer } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { cassetteFiles, cli, journalsIn, node, readJson, until, validateJson } from './dir-helpers.js';

test('stdio --rotate-size: a long v2 SDK session is cut into parts where no message is split and no request waits, each its own valid cassette', async (t) => {
  const dir = tempDir(t);
  const result = await runExampleScenario(
    {
      command: node,
      args: [cli, 'record', '--cassette-dir', dir, '--rotate-size', '1KB', '--label', 'example', '--', node, exampleServer, 'stdio'],
    },
    'legacy',
  );
  t.is(result.protocolVersion, '2025-11-25');
  await until(() => journalsIn(dir).length === 0 && cassetteFiles(dir).length > 0, 'the cassettes');
  const parts = cassetteFiles(dir).map((f) => readJson(f).sessions);
  t.true(parts.length >= 3, `${parts.length} parts`);
  t.true(
    parts.every((s) => s.length === 1),
    'a part per cassette',
  );
  const sessions = parts.map((s) => s[0]!);
  const first = sessions[0]!;
  t.is(first.label, 'example');
  t.is(first.end?.reason, 'continued');
  sessions.slice(1).forEach((s, i) => t.is(s.label, `example, part ${i + 2} of session ${first.id}`));
  t.is(sessions.at(-1)!.end?.reason, 'exit');
  const messages = sessions.flatMap((s) => s.messages);
  t.true(
    messages.every((m) => !m.unterminated && m.kind !== 'text'),
    'no line was cut',
  );
  t.true(messages.filter((m) => m.kind === 'request').length >= 6);
  // Every request and its response are in the same part.
  for (const s of sessions) {
    const asked = s.messages
      .filter((m) => m.kind === 'request')
      .map((m) => `${m.direction} ${JSON.stringify((m.json as { id: unknown }).id)}`);
    const answered = s.messages
      .filter((m) => m.kind === 'response')
      .map(
        (m) =>
          `${m.direction === 'client-to-server' ? 'server-to-client' : 'client-to-server'} ${JSON.stringify((m.json as { id: unknown }).id)}`,
      );
    t.deepEqual([...answered].sort(), [...asked].sort(), `${s.label}: every request answered in its own part`);
  }
  t.truthy(messages.find((m) => (m.json as { method?: string }).method === 'prompts/get'));
  const report = await validateJson([dir]);
  t.is(report.summary.cassettes, parts.length);
  t.deepEqual(
    report.violations.filter((v) => v.severity === 'error').map((v) => v.rule),
    [],
  );
});
