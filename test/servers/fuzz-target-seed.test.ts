/**
 * Recordings of test/servers/fuzz-target.ts through the real `record` proxy. The seed cassette of
 * `mcp-cassette fuzz`'s proof (test/helpers/fuzz-target.ts, recordSeedCassette: the official v2
 * SDK client in both eras, over stdio and Streamable HTTP) must be clean (`validate --fail-on
 * warning` exits 0: the only finding is the info SEC-LOCAL-HTTP-OPEN of an HTTP server without
 * authorization), hold one valid call of every tool but delete_everything, and replay clean
 * against the server (its answers are deterministic). And the defects that show in the traffic
 * get exactly the rules DEFECTS names, at their answers.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import test from 'ava';
import { loadCassette } from '../../lib/cassette/store.js';
import { RawStdioProcess } from '../../lib/raw-client/stdio.js';
import { validateCassettes } from '../../validators/validate-run.js';
import { recordSeedCassette, SEED_CALLS, fuzzTargetCommand, startFuzzTargetHttp, TRIGGERS } from '../helpers/fuzz-target.js';
import { cli, node } from '../helpers/paths.js';
import { recordArgs, waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { DEFECTS } from '../servers/fuzz-target-tools.js';

type Json = Record<string, unknown>;

for (const era of ['2025-11-25', '2026-07-28'] as const) {
  for (const transport of ['stdio', 'http'] as const) {
    test(`${era} over ${transport}: the seed cassette calls every read-only tool once, validates clean and replays clean`, async (t) => {
      const path = await recordSeedCassette(t, { era, transport });
      const cassette = loadCassette(path);
      const messages = cassette.sessions.flatMap((s) => s.messages);
      const sent = messages.filter((m) => m.direction === 'client-to-server').map((m) => m.json as Json);
      const calls = sent.filter((m) => m.method === 'tools/call').map((m) => (m.params as Json).name);
      t.deepEqual(
        calls,
        SEED_CALLS.map((c) => c.name),
      );
      t.deepEqual(
        DEFECTS.filter((d) => !calls.includes(d.tool)).map((d) => d.tool),
        ['delete_everything'],
      );
      t.true(sent.some((m) => m.method === 'tools/list'));
      t.is(
        sent.some((m) => m.method === 'initialize'),
        era === '2025-11-25',
      );
      t.is(
        sent.some((m) => m.method === 'server/discover'),
        era === '2026-07-28',
      );
      const results = messages.filter((m) => m.direction === 'server-to-client').map((m) => m.json as Json);
      t.false(
        results.some((m) => 'error' in m || (m.result as Json | undefined)?.isError === true),
        'no error, no isError',
      );

      const validate = spawnSync(node, [cli, 'validate', path, '--fail-on', 'warning', '--format', 'json'], { encoding: 'utf8' });
      t.is(validate.status, 0, validate.stdout + validate.stderr);
      const found = (JSON.parse(validate.stdout) as { violations: Array<{ rule: string }> }).violations.map((v) => v.rule);
      t.deepEqual(found, transport === 'http' ? ['SEC-LOCAL-HTTP-OPEN'] : []);

      const target = transport === 'stdio' ? ['--', ...fuzzTargetCommand()] : ['--url', (await startFuzzTargetHttp(t)).url];
      const replay = spawnSync(node, [cli, 'replay', path, ...target], { encoding: 'utf8' });
      t.is(replay.status, 0, replay.stdout + replay.stderr);
    });
  }
}

for (const era of ['2025-11-25', '2026-07-28'] as const) {
  test(`${era}: a recorded session that sets off defects 3, 5 and 6 gets exactly their rules, each at its answer`, async (t) => {
    const path = join(tempDir(t), 'defects.cassette.json');
    const p = new RawStdioProcess({ command: [node, ...recordArgs(path, fuzzTargetCommand())] });
    t.teardown(() => p.close());
    const meta = {
      'io.modelcontextprotocol/protocolVersion': era,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'fuzz-target-test', version: '1.0.0' },
    };
    const params = (x: Json): Json => (era === '2026-07-28' ? { ...x, _meta: meta } : x);
    if (era === '2025-11-25') {
      const info = { name: 'fuzz-target-test', version: '1.0.0' };
      await p.request(
        { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: era, capabilities: {}, clientInfo: info } },
        30_000,
      );
      p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }
    await p.request({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: params({}) }, 30_000);
    const defects = DEFECTS.filter((d) => 'rule' in d);
    for (const d of defects) {
      const ex = await p.request({ jsonrpc: '2.0', id: `defect-${d.n}`, method: 'tools/call', params: params(TRIGGERS[d.n]!) }, 30_000);
      t.truthy(ex.response, `defect ${d.n} is answered`);
    }
    await p.close(30_000);
    const cassette = await waitForSessions(path, 1);
    const messages = cassette.sessions[0]!.messages;
    /** The seq of the answer to `defect-<n>`, and for the noise (stdio), the line before it. */
    const answerSeq = (n: number): number =>
      messages.find((m) => m.direction === 'server-to-client' && (m.json as Json | undefined)?.id === `defect-${n}`)!.seq;
    const expected = defects.map((d) => `${d.rule} ${d.severity} #${d.name === 'stdout-noise' ? answerSeq(d.n) - 1 : answerSeq(d.n)}`);
    const found = validateCassettes([path]).violations.map((v) => `${v.rule} ${v.severity} #${v.seq}`);
    t.deepEqual(found.sort(), expected.sort());
    t.deepEqual(
      defects.map((d) => d.rule),
      ['TOOLS-ERR-EXECUTION', 'STDIO-STDOUT-CLEAN', 'TOOLS-CALL-SHAPE'],
    );
  });
}
