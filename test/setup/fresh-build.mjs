// Loaded by ava before each test file (package.json `ava.require`). Tests run the compiled
// dist/ copy, so `npx ava test/x.test.ts` after an edit would run the code as it was before it;
// here, when a source is newer than the last build (dist/.build-stamp), the build runs first,
// once (a lock folder keeps two test files from building at the same time). The runner
// (test/setup/run-tests.mjs) builds before ava starts and says so through
// MCP_CASSETTE_TEST_SHARED, so under `npm test` this costs nothing.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCES = ['lib', 'recorder', 'replay', 'validators', 'check', 'test'];
const stamp = join(root, 'dist', '.build-stamp');
const lock = join(root, 'dist', '.build-lock');
const GOLDEN = join(root, 'test', 'refactor', 'golden');

/** The newest modification time of a source file (TypeScript, JSON, CSS, HTML) under `dir`. */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // test/peers/node22/node_modules: the Node 22 peers' install, not a source; test/refactor/golden:
    // outputs of the build (its JSON reports), rewritten by `update` without a source changing.
    if (entry.isDirectory()) latest = entry.name === 'node_modules' || path === GOLDEN ? latest : Math.max(latest, newest(path));
    else if (/\.(ts|tsx|mts|mjs|cjs|json|css|html)$/.test(entry.name)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

function builtAt() {
  try {
    return statSync(stamp).mtimeMs;
  } catch {
    return 0;
  }
}

function stale() {
  const sources = Math.max(
    ...SOURCES.map((d) => newest(join(root, d))),
    ...['package.json', 'tsconfig.json'].map((f) => statSync(join(root, f)).mtimeMs),
  );
  return sources > builtAt();
}

if (!process.env.MCP_CASSETTE_TEST_SHARED && stale()) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  const deadline = Date.now() + 300_000;
  const tick = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let mine = false;
    try {
      mkdirSync(lock, { recursive: false });
      mine = true;
    } catch {
      // another test file is building
    }
    if (mine) {
      try {
        if (stale()) {
          process.stderr.write('# sources changed since the last build: building first (npm run build)\n');
          const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], {
            cwd: root,
            stdio: ['ignore', 2, 2],
            shell: process.platform === 'win32',
          });
          if (r.status !== 0) throw new Error('the build failed (npm run build): the tests would run stale code');
        }
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      break;
    }
    if (!stale()) break;
    if (Date.now() > deadline) throw new Error(`another build held ${lock} for 5 minutes; remove it if no build is running`);
    Atomics.wait(tick, 0, 0, 200);
  }
}
