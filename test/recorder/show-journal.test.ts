/**
 * After a SIGKILL, `show` of a cassette that was never written says that a recording's journal is
 * there and names the command that writes it, instead of "does not exist". The recorder is killed
 * while its parent does not reap it (a host that has not waited for it yet): its process still
 * looks alive, so no read adds the journal by itself. Real processes throughout.
 */
import test from 'ava';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cli, node, rawServer } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';

const posix = process.platform === 'win32' ? test.skip : test;

posix('show after a SIGKILL names the journal and `mcp-cassette recover`; recover writes the cassette', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'x.cassette.json');
  // sh starts the recorder (its stdin is ours, through fd 3), prints its pid, then becomes a
  // `sleep` that never waits for it: once killed, the recorder stays a zombie, as under a host
  // that has not reaped it yet.
  const script = 'exec 3<&0; "$0" "$1" record --cassette "$2" -- "$0" "$3" echo <&3 & echo "pid $!" >&2; exec sleep 600';
  const parent = spawnTracked(t, 'sh', ['-c', script, node, cli, cassette, rawServer]);
  const pid = Number(/pid (\d+)/.exec(await waitForOutput(parent.stderr!, (s) => /pid \d+\n/.test(s)))![1]);
  parent.stdin!.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  await waitForOutput(parent.stdout!, (s) => s.includes('"id":1'));
  process.kill(pid, 'SIGKILL');
  const journal = readdirSync(dir).find((n) => n.endsWith('.journal'));
  t.truthy(journal, 'the journal is there');

  const show = await collect(spawnTracked(t, node, [cli, 'show', cassette], { stdio: ['ignore', 'pipe', 'pipe'] }));
  t.is(show.code, 2);
  t.is(
    show.stderr,
    `mcp-cassette: cassette ${cassette} does not exist yet, but a recording left its journal beside it (${journal}): its recorder (process ${pid}) still looks alive, so no command adds it by itself. If that recorder was killed, run \`mcp-cassette recover --force ${cassette}\` to write its sessions into the cassette; if it is still recording, the cassette is written when it ends\n`,
  );

  // The command it names works as named.
  const recover = await collect(spawnTracked(t, node, [cli, 'recover', '--force', cassette], { stdio: ['ignore', 'pipe', 'pipe'] }));
  t.is(recover.code, 0, recover.stderr);
  const again = await collect(spawnTracked(t, node, [cli, 'show', cassette], { stdio: ['ignore', 'pipe', 'pipe'] }));
  t.is(again.code, 0, again.stderr);
  t.regex(again.stdout.toString(), /: 1 session\n[\s\S]*methods: ping/);
});
