/**
 * `wrap` does what its help says: every stdio entry by default. An HTTP (`url`) entry would be
 * pointed at a recording proxy that nothing starts, so it is wrapped only when asked (`--http`, or
 * named with `--server`), and the output says it was left alone and why. Real CLI processes on
 * Claude Desktop and VS Code config files.
 */
import test from 'ava';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'jsonc-parser';
import { statePath } from '../../recorder/wrap/wrap.js';
import { cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';

const fixtures = join(root, 'cassettes', 'fixtures', 'host-configs');
type Entry = { command?: string; url?: string };

const hosts = [
  { file: 'claude_desktop_config.json', key: 'mcpServers', stdio: ['filesystem', 'github'], http: 'remote' },
  { file: 'vscode-mcp.json', key: 'servers', stdio: ['memory', 'bare'], http: 'docs' },
];

function servers(config: string, key: string): Record<string, Entry> {
  return (parse(readFileSync(config, 'utf8')) as Record<string, Record<string, Entry>>)[key]!;
}

for (const h of hosts) {
  test(`wrap ${h.file}: every stdio entry; the HTTP entry left alone, and said why`, async (t) => {
    const dir = tempDir(t);
    const config = join(dir, h.file);
    copyFileSync(join(fixtures, h.file), config);
    const before = servers(config, h.key);
    const r = await collect(spawnTracked(t, node, [cli, 'wrap', config, '--cassette-dir', join(dir, 'c')]));
    t.is(r.code, 0, r.stderr);
    const out = r.stdout.toString();
    for (const name of h.stdio) t.true(out.includes(`wrapped "${name}" -> records into`), out);
    t.true(
      out.includes(
        `left "${h.http}" alone: an HTTP (url) entry: wrapping it points the host at a local recording proxy that you must start yourself (wrap starts nothing), so it is wrapped only on request: --http, or --server "${h.http}"\n`,
      ),
      out,
    );
    t.notRegex(out, /\(HTTP\): it now points at/);
    const after = servers(config, h.key);
    t.deepEqual(after[h.http], before[h.http], 'the HTTP entry is unchanged');
    for (const name of h.stdio) t.is(after[name]!.command, process.execPath);
    t.false(existsSync(statePath(config)), 'no HTTP entry is recorded as wrapped');
  });
}

test('an HTTP entry named with --server is wrapped, and so is every one with --http', async (t) => {
  const dir = tempDir(t);
  const named = join(dir, 'named', 'vscode-mcp.json');
  const all = join(dir, 'all', 'claude_desktop_config.json');
  for (const [from, to] of [
    ['vscode-mcp.json', named],
    ['claude_desktop_config.json', all],
  ] as const) {
    mkdirSync(dirname(to));
    copyFileSync(join(fixtures, from), to);
  }
  const one = await collect(spawnTracked(t, node, [cli, 'wrap', named, '--server', 'docs', '--cassette-dir', join(dir, 'c')]));
  t.is(one.code, 0, one.stderr);
  t.regex(
    one.stdout.toString(),
    /wrapped "docs" \(HTTP\): it now points at http:\/\/127\.0\.0\.1:\d+\/mcp; start the recording proxy with/,
  );
  t.regex(servers(named, 'servers').docs!.url!, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  t.is(servers(named, 'servers').memory!.command, 'npx', 'only the entry named');

  const every = await collect(spawnTracked(t, node, [cli, 'wrap', all, '--http', '--cassette-dir', join(dir, 'c')]));
  t.is(every.code, 0, every.stderr);
  t.regex(every.stdout.toString(), /wrapped "remote" \(HTTP\): it now points at http:\/\/127\.0\.0\.1:\d+\/mcp;/);
  t.regex(every.stdout.toString(), /wrapped "filesystem" -> records into/);
  t.true(existsSync(statePath(all)));
});
