import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { node, root } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';
import { packedTarball } from '../helpers/packed.js';

// What a user gets from `npm install mcp-cassette`: the package is packed exactly as it would be
// published (`npm pack`), unpacked into a consumer project's node_modules, and imported there by
// its name. Its runtime dependencies are linked from this checkout (no registry needed).
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};

async function installPacked(t: import('ava').ExecutionContext): Promise<string> {
  const consumer = tempDir(t, 'mcp-cassette-consumer-');
  const packed = await packedTarball(consumer);
  const modules = join(consumer, 'node_modules');
  mkdirSync(modules);
  execFileSync('tar', ['-xzf', packed.path, '-C', modules]);
  renameSync(join(modules, 'package'), join(modules, pkg.name));
  for (const dep of Object.keys(pkg.dependencies)) {
    mkdirSync(join(modules, dep, '..'), { recursive: true });
    symlinkSync(join(root, 'node_modules', dep), join(modules, dep), 'dir');
  }
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { [pkg.name]: '*' } }),
  );
  rmSync(join(consumer, 'pack'), { recursive: true, force: true });
  return consumer;
}

test('a consumer imports replayCassette from mcp-cassette/replay (and the package root), internals stay private, the bin runs', async (t) => {
  const consumer = await installPacked(t);
  const installed = join(consumer, 'node_modules', pkg.name);
  // The consumer's test: replay the example cassette shipped in the package against the example
  // server shipped in the package.
  writeFileSync(
    join(consumer, 'check.mjs'),
    `
    import { replayCassette, renderConsole, exitCodeFor } from 'mcp-cassette/replay';
    import * as main from 'mcp-cassette';
    import { createRequire } from 'node:module';
    const dir = new URL('./node_modules/mcp-cassette/', import.meta.url).pathname;
    const result = await replayCassette(${JSON.stringify(join(root, 'cassettes', 'examples', 'example-server.cassette.json'))}, {
      command: [process.execPath, dir + 'dist/recorder/demo/example-server.js', 'stdio'], config: false, cwd: dir,
    });
    const out = { outcome: result.outcome, sessions: result.summary.sessions, exit: exitCodeFor(result), sameAsRoot: main.replayCassette === replayCassette, rendered: typeof renderConsole(result, false) };
    for (const spec of ['mcp-cassette/lib/cli.js', 'mcp-cassette/replay/replay.js', 'mcp-cassette/dist/replay/index.js', 'mcp-cassette/package.json']) {
      try { await import(spec, spec.endsWith('.json') ? { with: { type: 'json' } } : undefined); out[spec] = 'ok'; } catch (e) { out[spec] = e.code; }
    }
    out.resolved = createRequire(import.meta.url).resolve('mcp-cassette/replay');
    console.log(JSON.stringify(out));
  `,
  );
  const run = await collect(spawnTracked(t, node, ['check.mjs'], { cwd: consumer }));
  t.is(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout.toString('utf8')) as Record<string, unknown>;
  t.is(out.outcome, 'passed');
  t.is(out.sessions, 3);
  t.is(out.exit, 0);
  t.true(out.sameAsRoot, '"." is the same API');
  t.is(out.rendered, 'string');
  t.is(out.resolved, join(installed, 'dist', 'replay', 'index.js'), 'resolved inside the installed copy, not this checkout');
  t.is(out['mcp-cassette/lib/cli.js'], 'ERR_PACKAGE_PATH_NOT_EXPORTED', 'only what "exports" lists is importable');
  t.is(out['mcp-cassette/replay/replay.js'], 'ERR_PACKAGE_PATH_NOT_EXPORTED');
  t.is(out['mcp-cassette/dist/replay/index.js'], 'ok', 'the old deep import still works');
  t.is(out['mcp-cassette/package.json'], 'ok');

  // The bin, as npm links it into node_modules/.bin.
  const bin = join(installed, pkg.bin['mcp-cassette']!);
  const version = await collect(spawnTracked(t, node, [bin, '--version'], { cwd: consumer }));
  t.is(version.stdout.toString('utf8').trim(), JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version);
  const replay = await collect(
    spawnTracked(
      t,
      node,
      [
        bin,
        'replay',
        join(root, 'cassettes', 'examples', 'example-server.cassette.json'),
        '--',
        node,
        'node_modules/mcp-cassette/dist/recorder/demo/example-server.js',
        'stdio',
      ],
      { cwd: consumer },
    ),
  );
  t.is(replay.code, 0, replay.stdout.toString('utf8') + replay.stderr);
  // The view's page is bundled into the package (dist/lib/view/ui/) and served offline.
  const view = spawnTracked(t, node, [bin, 'view', join(root, 'cassettes', 'examples', 'example-server.cassette.json')], { cwd: consumer });
  const url = new URL((await waitForOutput(view.stdout!, (s) => s.includes('\n'))).split('\n')[0]!);
  const page = await fetch(url);
  t.is(page.status, 200);
  const script = /src="(app\.js\?token=[^"]+)"/.exec(await page.text())?.[1];
  const bundle = await fetch(new URL(script ?? 'app.js', url));
  t.is(bundle.status, 200);
  t.true((await bundle.text()).length > 10_000, 'the bundled page (Preact and the view) is served from the package');
  view.kill('SIGTERM');
  // The runtime only: no tests, fixtures, example cassettes or source maps.
  const { readdirSync } = await import('node:fs');
  t.deepEqual(readdirSync(installed).sort(), ['LICENSE', 'README.md', 'dist', 'docs', 'lib', 'package.json', 'replay']);
  t.deepEqual(readdirSync(join(installed, 'dist')).sort(), ['bin', 'check', 'lib', 'recorder', 'replay', 'validators']);
});
