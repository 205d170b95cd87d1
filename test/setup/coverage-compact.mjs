#!/usr/bin/env node
// Shrinks the V8 coverage that a test:all run leaves in coverage/tmp before `c8 report` reads it.
// Every process the tests start writes one file holding every script it ran (Node's internals,
// node_modules, the test files) and a copy of every source map it loaded: measured here, 2,600
// files and 4.9 GB, of which our own compiled sources are about 5%. c8 merges all of it, which
// took over 3 minutes; kept to our scripts, with the source maps read from dist/ instead (they are
// the same files), the report is the same to the line and branch (compared on 400 files: 13.9 s
// to 4.1 s, plus 2.8 s for this pass).
//
// The files are parsed in as many processes as the machine has cores (up to 4): the pass is
// JSON parsing, one core's work per file, 7.4 GB of it in a full run.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..', '..');
const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--')) ?? join(root, 'coverage', 'tmp');
/** `--part=i/n`: this process compacts the files whose index is i modulo n, and prints its counts. */
const part = args.find((a) => a.startsWith('--part='))?.slice('--part='.length);
// The folders of dist/ that c8 maps back to the sources it reports (.c8rc.json's include).
const ours = ['lib', 'recorder', 'replay', 'validators', 'check', 'bin'].map((d) => `${pathToFileURL(join(root, 'dist', d)).href}/`);
const MAPS = ',"source-map-cache":';

if (part === undefined) {
  const n = Math.max(1, Math.min(availableParallelism(), 4));
  const counts = await Promise.all(Array.from({ length: n }, (_, i) => compactIn(`${i}/${n}`)));
  const sum = (k) => counts.reduce((total, c) => total + c[k], 0);
  const unreadable = sum('unreadable');
  const skipped = unreadable > 0 ? ` (${unreadable} unreadable file(s) left for c8 to skip)` : '';
  console.log(
    `# coverage: ${(sum('before') / 1e6).toFixed(0)} MB of V8 coverage kept to our scripts, ${(sum('after') / 1e6).toFixed(0)} MB${skipped}`,
  );
} else {
  const [i, n] = part.split('/').map(Number);
  process.stdout.write(JSON.stringify(compact((k) => k % n === i)));
}

/** Runs one part in a process of its own; its counts. */
function compactIn(which) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), dir, `--part=${which}`], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_V8_COVERAGE: '' },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`coverage-compact part ${which} exited ${code}`)),
    );
  });
}

/** Compacts the files `mine` picks (by their index in name order); what it read, wrote and could not read. */
function compact(mine) {
  let before = 0;
  let after = 0;
  let unreadable = 0;
  const names = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort();
  for (const [k, name] of names.entries()) {
    if (!mine(k)) continue;
    const file = join(dir, name);
    const raw = readFileSync(file, 'utf8');
    // Node writes the maps last; cutting them off as text spares parsing two thirds of the file.
    const at = raw.lastIndexOf(MAPS);
    const report = parse(at < 0 ? raw : `${raw.slice(0, at)}}`) ?? parse(raw); // else not the layout expected
    if (report === undefined) {
      // A process that ended while Node wrote its coverage leaves a cut or empty file; c8 skips such
      // a file, so it stays as it is and counts here.
      unreadable++;
      continue;
    }
    report.result = (report.result ?? []).filter((s) => ours.some((prefix) => s.url.startsWith(prefix)));
    delete report['source-map-cache'];
    const text = JSON.stringify(report);
    before += raw.length;
    after += text.length;
    writeFileSync(file, text);
  }
  return { before, after, unreadable };
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
