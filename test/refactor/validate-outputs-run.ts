/**
 * What `mcp-cassette validate` prints for every cassette in the repository, in every report
 * format, and what `mcp-cassette rules` prints: captured from a build, written as a snapshot
 * folder (one file per stdout, index.json with the arguments, exit codes and stderr), and compared
 * with one. Used by the before/after tool validate-outputs.ts and by outputs.test.ts against the
 * committed goldens (test/refactor/golden/validate/).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { packageRoot } from '../../lib/paths.js';
import { replacePath } from './normalise.js';
import { type Difference, lineDiff, textDiff } from './output-diff.js';
import { inPool } from './pool.js';

/** The committed goldens of this checkout (outputs.test.ts). */
export const GOLDEN_VALIDATE = join(packageRoot, 'test', 'refactor', 'golden', 'validate');
/** Regenerates them after an intended change of behaviour (said by outputs.test.ts when it fails). */
export const UPDATE_VALIDATE = 'node dist/test/refactor/validate-outputs.js update';

/** One CLI run whose output must not change. */
interface Output {
  /** File name in the snapshot folder (its stdout), unique. */
  name: string;
  args: string[];
}

export interface Captured {
  args: string[];
  exitCode: number | null;
  stderr: string;
  stdout: string;
}

/** What the snapshot folder holds besides the stdout files. */
interface Index {
  outputs: Record<string, Omit<Captured, 'stdout'>>;
}

export interface CaptureOptions {
  /** CLI runs at a time. */
  concurrency?: number;
  /** Each process started (a test kills what outlives it). */
  started?: (child: ChildProcess) => void;
  /** Each run, as it starts (the manual tool prints it). */
  log?: (line: string) => void;
}

const FORMATS = ['json', 'text', 'junit', 'sarif', 'github'];
/** Folders that hold no cassette of the repository's own (build output, packages, caches). */
const SKIP_DIRS = new Set(['node_modules', 'dist', '.cache', '.git', '.scratch', 'tmp']);
/** The goldens hold replayed cassettes (`*.written.cassette.json`): outputs, not inputs. */
const GOLDEN_DIR = 'test/refactor/golden/';
const INDEX_FILE = 'index.json';

/** Every `*.cassette.json` of the checkout, as sorted relative paths with `/`: in a git checkout
 * the files git tracks and the untracked ones it does not ignore (not the demo's recording, not
 * test-artifacts/), else every one below `root` outside SKIP_DIRS. */
function cassettesOf(root: string): string[] {
  let found: string[];
  try {
    const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', '*.cassette.json'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    // A tracked file deleted in the working tree is listed too: only those that exist.
    found = listed.split('\0').filter((p) => p !== '' && existsSync(join(root, p)));
  } catch {
    found = walk(root);
  }
  return [...new Set(found)].filter((p) => !p.startsWith(GOLDEN_DIR) && !p.split('/').some((d) => SKIP_DIRS.has(d))).sort();
}

function walk(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (SKIP_DIRS.has(name)) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) visit(path);
      else if (name.endsWith('.cassette.json')) out.push(relative(root, path).split(sep).join('/'));
    }
  };
  visit(root);
  return out;
}

function outputsOf(root: string): Output[] {
  const outputs: Output[] = [
    { name: 'rules.json', args: ['rules', '--json'] },
    { name: 'rules.md', args: ['rules', '--markdown'] },
    { name: 'rules.txt', args: ['rules'] },
  ];
  for (const cassette of cassettesOf(root)) {
    for (const format of FORMATS) {
      outputs.push({ name: `validate--${cassette.replaceAll('/', '--')}.${format}`, args: ['validate', '--format', format, cassette] });
    }
  }
  return outputs;
}

/** Runs the CLI of `root` from `root` (cassettes by relative path); the checkout's own path is
 * replaced by `<root>` in what it prints (normalise.ts), so two checkouts compare equal. */
function capture(root: string, output: Output, options: CaptureOptions): Promise<Captured> {
  const cli = join(root, 'dist', 'lib', 'cli.js');
  // No colour whatever runs this (a terminal, ava's FORCE_COLOR): the text report is plain.
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' };
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli, ...output.args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    options.started?.(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', fail);
    child.on('close', (exitCode) => {
      const clean = (b: Buffer[]): string => replacePath(Buffer.concat(b).toString('utf8'), root, '<root>');
      done({ args: output.args, exitCode, stderr: clean(err), stdout: clean(out) });
    });
  });
}

/** Every output of the build and cassettes of `root`, by snapshot file name. */
export async function captureAll(root: string, options: CaptureOptions = {}): Promise<Map<string, Captured>> {
  if (!existsSync(join(root, 'dist', 'lib', 'cli.js'))) throw new Error(`${root} has no build: run \`npm run build\` there first`);
  const outputs = outputsOf(root);
  const captured = await inPool(outputs, options.concurrency ?? 2, (output) => {
    options.log?.(output.args.join(' '));
    return capture(root, output, options);
  });
  return new Map(outputs.map((o, i) => [o.name, captured[i]!]));
}

/** Writes `all` to `dir`; with `replace`, what a former snapshot there holds goes first. */
export function writeSnapshot(dir: string, all: Map<string, Captured>, replace = false): void {
  if (replace) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const index: Index = { outputs: {} };
  for (const [name, { stdout, ...rest }] of all) {
    writeFileSync(join(dir, name), stdout);
    index.outputs[name] = rest;
  }
  writeFileSync(join(dir, INDEX_FILE), `${JSON.stringify(index, null, 2)}\n`);
}

/** How `now` differs from the snapshot in `dir`: a missing or new output, exit code, stderr,
 * stdout. Empty when everything is identical. */
export function compareSnapshot(dir: string, now: Map<string, Captured>): Difference[] {
  const index = JSON.parse(readFileSync(join(dir, INDEX_FILE), 'utf8')) as Index;
  const differences: Difference[] = [];
  for (const name of Object.keys(index.outputs)) {
    if (!now.has(name)) differences.push({ name, lines: ['missing now (a cassette gone, or an output no longer produced)'] });
  }
  for (const [name, after] of now) {
    const before = index.outputs[name];
    if (!before) {
      differences.push({ name, lines: ['new (not in the snapshot)'] });
      continue;
    }
    const lines: string[] = [];
    if (before.exitCode !== after.exitCode) lines.push(`exit code: ${before.exitCode} → ${after.exitCode}`);
    if (before.stderr !== after.stderr) lines.push(...lineDiff(before.stderr, after.stderr).map((l) => `stderr ${l}`));
    lines.push(...textDiff(readFileSync(join(dir, name), 'utf8'), after.stdout));
    if (lines.length > 0) differences.push({ name, lines });
  }
  return differences;
}
