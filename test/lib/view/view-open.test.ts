/**
 * `view --open` when the browser cannot be opened says so, with the URL to open by hand and the
 * opener's own reason. The opener is a real program found on PATH (`xdg-open`, or `open` on
 * macOS): one that fails the way xdg-open does on a machine with no browser.
 */
import test from 'ava';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { cli, node, root } from '../../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../../helpers/proc.js';
import { tempDir } from '../../helpers/tmp.js';

const example = join(root, 'cassettes', 'examples', 'example-server.cassette.json');
const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
const posix = process.platform === 'win32' ? test.skip : test;

posix('view --open with no browser to open: the URL and the reason on stderr', async (t) => {
  const dir = tempDir(t);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, opener), `#!/bin/sh\necho "${opener}: no method available for opening '$1'" >&2\nexit 3\n`);
  chmodSync(join(bin, opener), 0o755);
  const child = spawnTracked(t, node, [cli, 'view', example, '--open'], {
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` },
  });
  const done = collect(child);
  const url = (await waitForOutput(child.stdout!, (s) => s.includes('\n'))).split('\n')[0]!;
  t.regex(url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
  const said = await waitForOutput(child.stderr!, (s) => s.endsWith('\n'));
  t.is(
    said,
    `mcp-cassette view: --open: the browser could not be opened (${opener} exited with status 3: ${opener}: no method available for opening '${url}'); open ${url} yourself\n`,
  );
  child.kill('SIGTERM');
  t.is((await done).code, 0, 'still serving the page until stopped');
});
