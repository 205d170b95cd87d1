/**
 * The before/after proof for a restructuring that must not change behaviour (issue 16): what
 * `mcp-cassette validate` prints for every cassette in the repository, in every report format, and
 * what `mcp-cassette rules` prints, captured from one build and compared with another.
 *
 *   node dist/test/refactor/validate-outputs.js snapshot <dir> [--root <checkout>]
 *   node dist/test/refactor/validate-outputs.js compare <dir> [--root <checkout>]
 *
 * `--root` is the checkout whose build (dist/lib/cli.js) and cassettes are used, by default the
 * one this script was built in: the commit before a restructuring does not hold this script, so
 * its snapshot is taken with the script of the commit after, pointed at the old checkout. `compare`
 * prints every difference (a missing or new output, exit code, stderr, and stdout: by JSON Pointer
 * when both sides are JSON, else by line) and exits 1 on any; 0 when everything is identical.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { packageRoot } from '../../lib/paths.js';
import { pointer } from '../../validators/walk.js';

/** One CLI run whose output must not change. */
interface Output {
  /** File name in the snapshot folder (its stdout), unique. */
  name: string;
  args: string[];
}

interface Captured {
  args: string[];
  exitCode: number | null;
  stderr: string;
  stdout: string;
}

/** What the snapshot folder holds besides the stdout files. */
interface Index {
  outputs: Record<string, Omit<Captured, 'stdout'>>;
}

const FORMATS = ['json', 'text', 'junit', 'sarif', 'github'];
/** Folders that hold no cassette of the repository's own (build output, packages, caches). */
const SKIP_DIRS = new Set(['node_modules', 'dist', '.cache', '.git', '.scratch', 'tmp']);
/** Differences printed per output before the rest are only counted. */
const SHOWN_PER_OUTPUT = 20;
const INDEX_FILE = 'index.json';

/** Every `*.cassette.json` under the checkout, as sorted relative paths with `/`. */
function cassettesOf(root: string): string[] {
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
  return out.sort();
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
 * replaced by `<root>` in what it prints, so two checkouts in different folders compare equal. */
function capture(root: string, output: Output): Captured {
  const cli = join(root, 'dist', 'lib', 'cli.js');
  // FORCE_COLOR=0: the text report is the same whatever terminal runs this script.
  const run = spawnSync(process.execPath, [cli, ...output.args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  if (run.error) throw run.error;
  const clean = (s: string): string => s.replaceAll(root, '<root>');
  return { args: output.args, exitCode: run.status, stderr: clean(run.stderr), stdout: clean(run.stdout) };
}

function captureAll(root: string): Map<string, Captured> {
  if (!existsSync(join(root, 'dist', 'lib', 'cli.js'))) throw new Error(`${root} has no build: run \`npm run build\` there first`);
  const all = new Map<string, Captured>();
  for (const output of outputsOf(root)) {
    process.stderr.write(`  ${output.args.join(' ')}\n`);
    all.set(output.name, capture(root, output));
  }
  return all;
}

function snapshot(root: string, dir: string): number {
  mkdirSync(dir, { recursive: true });
  const index: Index = { outputs: {} };
  const all = captureAll(root);
  for (const [name, { stdout, ...rest }] of all) {
    writeFileSync(join(dir, name), stdout);
    index.outputs[name] = rest;
  }
  writeFileSync(join(dir, INDEX_FILE), `${JSON.stringify(index, null, 2)}\n`);
  process.stdout.write(`wrote ${all.size} outputs of ${root} to ${dir}\n`);
  return 0;
}

function compare(root: string, dir: string): number {
  const index = JSON.parse(readFileSync(join(dir, INDEX_FILE), 'utf8')) as Index;
  const now = captureAll(root);
  let differing = 0;
  const report = (name: string, lines: string[]): void => {
    if (lines.length === 0) return;
    differing += 1;
    process.stdout.write(`${name}\n`);
    for (const line of lines.slice(0, SHOWN_PER_OUTPUT)) process.stdout.write(`  ${line}\n`);
    if (lines.length > SHOWN_PER_OUTPUT) process.stdout.write(`  … and ${lines.length - SHOWN_PER_OUTPUT} more\n`);
  };
  for (const name of Object.keys(index.outputs)) {
    if (!now.has(name)) report(name, ['missing now (a cassette gone, or an output no longer produced)']);
  }
  for (const [name, after] of now) {
    const before = index.outputs[name];
    if (!before) {
      report(name, ['new (not in the snapshot)']);
      continue;
    }
    const lines: string[] = [];
    if (before.exitCode !== after.exitCode) lines.push(`exit code: ${before.exitCode} → ${after.exitCode}`);
    if (before.stderr !== after.stderr) lines.push(...lineDiff(before.stderr, after.stderr).map((l) => `stderr ${l}`));
    lines.push(...stdoutDiff(readFileSync(join(dir, name), 'utf8'), after.stdout));
    report(name, lines);
  }
  process.stdout.write(differing === 0 ? `no differences in ${now.size} outputs\n` : `${differing} output(s) differ\n`);
  return differing === 0 ? 0 : 1;
}

function stdoutDiff(before: string, after: string): string[] {
  if (before === after) return [];
  const a = parseJson(before);
  const b = parseJson(after);
  if (a.ok && b.ok) {
    const out: string[] = [];
    jsonDiff(a.value, b.value, '', out);
    // Equal values, different text (key order, spacing): still a change of output.
    return out.length > 0 ? out : ['same JSON value, different text', ...lineDiff(before, after)];
  }
  return lineDiff(before, after);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const show = (v: unknown): string => {
  const text = v === undefined ? '(absent)' : JSON.stringify(v);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

/** Every place where two JSON values differ, by JSON Pointer, with both sides. */
function jsonDiff(a: unknown, b: unknown, at: string, out: string[]): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${at || '/'}: ${a.length} items → ${b.length} items`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) jsonDiff(a[i], b[i], `${at}/${i}`, out);
    return;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    for (const key of new Set([...ka, ...kb])) {
      jsonDiff((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}${pointer([key])}`, out);
    }
    if (ka.join('\0') !== kb.join('\0') && ka.length === kb.length && ka.every((k) => kb.includes(k)))
      out.push(`${at || '/'}: member order ${ka.join(',')} → ${kb.join(',')}`);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${at || '/'}: ${show(a)} → ${show(b)}`);
}

/** Line by line, after the common start and end: what was there before and what is there now. */
function lineDiff(before: string, after: string): string[] {
  if (before === after) return [];
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const clip = (line: string): string => (line.length > 200 ? `${line.slice(0, 200)}…` : line);
  return [
    `from line ${start + 1}:`,
    ...a.slice(start, endA).map((l) => `- ${clip(l)}`),
    ...b.slice(start, endB).map((l) => `+ ${clip(l)}`),
  ];
}

function main(argv: string[]): number {
  const [command, dir, ...rest] = argv;
  let root = packageRoot;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--root' && rest[i + 1]) root = rest[++i]!;
    else return usage(`unknown argument ${rest[i]}`);
  }
  if (!dir || (command !== 'snapshot' && command !== 'compare')) return usage();
  root = resolve(root);
  return command === 'snapshot' ? snapshot(root, resolve(dir)) : compare(root, resolve(dir));
}

function usage(problem?: string): number {
  if (problem) process.stderr.write(`${problem}\n`);
  process.stderr.write('usage: node dist/test/refactor/validate-outputs.js snapshot|compare <dir> [--root <checkout>]\n');
  return 2;
}

process.exitCode = main(process.argv.slice(2));
