import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cli, exampleServer, node22, NODE22_HINT, node22Peer, node22Ready } from '../helpers/paths.js';
import { readCassette, waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { testWhen } from '../helpers/skip.js';

const node22Test = testWhen(node22Ready, 'MCP Inspector CLI tests', NODE22_HINT);

const inspector = node22Peer('node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** The MCP Inspector CLI (2.12, Node 22) with its config writes kept inside the test's folder. */
function runInspector(home: string, args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      node22!,
      [inspector, '--cli', ...args],
      { env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'catalog.json') }, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
      },
    );
  });
}

const cases: [string, string[], number][] = [
  ['tools/list', ['--method', 'tools/list', '--format', 'json'], 0],
  ['tools/call add', ['--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=3', '--format', 'json'], 0],
  [
    'tools/call add, 2026-07-28 (in-place probe)',
    ['--protocol-era', 'auto', '--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=3', '--format', 'json'],
    0,
  ],
  [
    'tools/call that needs elicitation (isError, exit 5)',
    ['--method', 'tools/call', '--tool-name', 'confirm_action', '--tool-arg', 'action=deploy', '--format', 'json'],
    5,
  ],
];

for (const [name, args, expectedCode] of cases) {
  node22Test(`MCP Inspector CLI, ${name}: identical JSON output and exit code through the stdio proxy`, async (t) => {
    const dir = tempDir(t);
    const home = join(dir, 'home');
    mkdirSync(home);
    const cassette = join(dir, 'inspector.cassette.json');
    const direct = await runInspector(home, ['node', exampleServer, 'stdio', ...args]);
    // The Inspector drops a `--` in the target's argv and takes --log-level for itself, so the
    // server command simply follows our options and our logs go to a file.
    const proxied = await runInspector(home, [
      'node',
      cli,
      'record',
      '--cassette',
      cassette,
      '--log-file',
      join(dir, 'proxy.log'),
      'node',
      exampleServer,
      'stdio',
      ...args,
    ]);
    t.is(direct.code, expectedCode, direct.stderr);
    t.is(proxied.code, direct.code);
    t.is(proxied.stdout, direct.stdout);
    t.is(proxied.stderr, direct.stderr);
    t.true(direct.stdout.length > 0 || direct.stderr.length > 0);
    const c = await waitForSessions(cassette, 1);
    t.true(readCassette(cassette).sessions.length >= 1);
    t.true(
      c.sessions[0]!.messages.some(
        (m) => (m.json as { method?: string })?.method === 'tools/list' || (m.json as { method?: string })?.method === 'tools/call',
      ),
    );
  });
}
