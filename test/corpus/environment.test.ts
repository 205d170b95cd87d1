/**
 * server-everything's get-env prints its whole environment as JSON. A host launch and a CI shell
 * give the same server the same configuration but a different SHLVL, a NO_COLOR the shell set,
 * and another key order: none of that is a difference (issue 30). A variable the server's
 * configuration sets differently is one.
 */
import test from 'ava';
import { join } from 'node:path';
import { replayCassette } from '../../replay/index.js';
import { node, root } from '../helpers/paths.js';
import { recordSdkSession } from '../helpers/sdk-recording.js';

const everything = join(root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const base = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/root',
  LANG: 'C.UTF-8',
  API_URL: 'https://a.example',
};

test('get-env from a host and from a CI shell: SHLVL, NO_COLOR and key order are no difference; a configured variable is', async (t) => {
  const server = [node, everything, 'stdio'];
  const { dir } = await recordSdkSession(t, server, async (c) => void (await c.callTool({ name: 'get-env', arguments: {} })), {
    env: () => ({ ...base, SHLVL: '1' }),
  });
  const cassette = join(dir, 'real.cassette.json');
  // The recorder passes its whole environment on: the recorded text is its JSON, in its order.
  const reversed = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).reverse());
  const shell = reversed({ ...(process.env as Record<string, string>), ...base, SHLVL: '3', NO_COLOR: '1' });
  const same = await replayCassette(cassette, { command: server, config: false, env: shell });
  const call = same.sessions[0]!.interactions.find((i) => i.name === 'get-env')!;
  t.is(call.outcome, 'same', JSON.stringify(call.differences, null, 1).slice(0, 2000));
  t.true(
    (call.masked ?? []).some((m) => m.shape === 'env-noise' && m.path.endsWith('/SHLVL')),
    JSON.stringify(call.masked),
  );
  const configured = await replayCassette(cassette, { command: server, config: false, env: { ...shell, API_URL: 'https://b.example' } });
  const changed = configured.sessions[0]!.interactions.find((i) => i.name === 'get-env')!;
  t.deepEqual(
    changed.differences.map((d) => `${d.kind} ${d.verdict} ${d.path}`),
    ['output-changed changed /result/content/0/text/{json}/API_URL'],
  );
});
