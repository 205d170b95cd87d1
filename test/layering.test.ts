import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { root } from './helpers/paths.js';

const FEATURES = ['recorder', 'replay', 'validators'];
/** The composition root may know every feature; nothing else in lib/ may. */
const COMPOSITION_ROOT = ['lib/cli.ts', 'lib/record-start.ts', 'lib/cli-main.ts', 'lib/cli-commands.ts'];
/** Commands that combine features (check: replay + validate + probe) live in a folder of their
 * own: it may import lib/ and every feature, and only the composition root may import it. */
const COMPOSITIONS = ['check'];

function sourceFiles(dir: string): string[] {
  let out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(sourceFiles(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)]
    .map((m) => m[1] ?? m[2]!)
    .filter((s) => s.startsWith('.'));
  return specs.map((s) => relative(root, resolve(dirname(file), s)));
}

const topFolder = (path: string) => path.split(sep)[0]!;

test('recorder/, replay/ and validators/ import only from lib/ and themselves', (t) => {
  const offences: string[] = [];
  let checked = 0;
  for (const feature of FEATURES) {
    for (const file of sourceFiles(join(root, feature))) {
      for (const target of relativeImports(file)) {
        checked += 1;
        const top = topFolder(target);
        if (top !== 'lib' && top !== feature) offences.push(`${relative(root, file)} imports ${target}`);
      }
    }
  }
  t.true(checked > 10, 'the scan found the feature folders and their imports');
  t.deepEqual(offences, []);
});

test('lib/ imports no feature folder, except the composition root', (t) => {
  const offences: string[] = [];
  const rootImports: string[] = [];
  for (const file of sourceFiles(join(root, 'lib'))) {
    const rel = relative(root, file);
    for (const target of relativeImports(file)) {
      if (!FEATURES.includes(topFolder(target)) && !COMPOSITIONS.includes(topFolder(target))) continue;
      if (COMPOSITION_ROOT.includes(rel)) rootImports.push(target);
      else offences.push(`${rel} imports ${target}`);
    }
  }
  t.true(rootImports.length > 0, 'the composition root does wire the features');
  t.deepEqual(offences, []);
});

test('a composition folder imports lib/ and the features, and only the composition root imports it', (t) => {
  const offences: string[] = [];
  let checked = 0;
  for (const folder of COMPOSITIONS) {
    for (const file of sourceFiles(join(root, folder))) {
      for (const target of relativeImports(file)) {
        checked += 1;
        const top = topFolder(target);
        if (top !== 'lib' && top !== folder && !FEATURES.includes(top)) offences.push(`${relative(root, file)} imports ${target}`);
      }
    }
  }
  t.true(checked > 10, 'the scan found the composition folders and their imports');
  for (const folder of [...FEATURES, ...COMPOSITIONS]) {
    for (const file of sourceFiles(join(root, folder))) {
      for (const target of relativeImports(file)) {
        const top = topFolder(target);
        if (COMPOSITIONS.includes(top) && top !== folder) offences.push(`${relative(root, file)} imports ${target}`);
      }
    }
  }
  t.deepEqual(offences, []);
});

test('the import scanner sees every kind of import', (t) => {
  const file = join(root, 'lib', 'cli-main.ts');
  const imports = relativeImports(file);
  t.true(
    imports.some((i) => i.startsWith('recorder')),
    'static imports',
  );
  t.true(imports.includes(join('lib', 'cli-commands.js')), 'dynamic imports');
});

// docs/architecture.md, Style: a reader can hold a source file; past 400 lines it is split by concern.
test('no source file in lib/, check/ or a feature folder is over 400 lines', (t) => {
  const long = ['lib', 'check', ...FEATURES]
    .flatMap((d) => sourceFiles(join(root, d)))
    .map((f) => ({ file: relative(root, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
    .filter((x) => x.lines > 400);
  t.deepEqual(long, [], 'split these by concern');
});

/** Functions over the cap that are not split yet, by `file name`: each says why it is left. */
/** Functions over the limit, each with why it stays (none today). */
const LONG_FUNCTIONS_ALLOWED = new Map<string, string>([]);

/** A function's name as a reader finds it: its own, or the variable or property it is assigned to. */
function functionName(node: ts.SignatureDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const own =
    node.name ??
    (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent) || ts.isPropertyDeclaration(node.parent)
      ? node.parent.name
      : undefined);
  return own ? own.getText() : '(anonymous)';
}

/** Every function with a body in a source file longer than `max` lines, start to end inclusive. */
function longFunctions(file: string, max: number): { at: string; key: string; lines: number }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const long: { at: string; key: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.end).line;
      const lines = end - start + 1;
      const name = functionName(node);
      const rel = relative(root, file);
      if (lines > max) long.push({ at: `${rel}:${start + 1} ${name} (${lines} lines)`, key: `${rel} ${name}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

// docs/architecture.md, Style: a reader can hold a function; past about 80 lines it is split by
// what each part does, as a file is past 400. A nested function counts on its own.
test('no function in lib/, check/ or a feature folder is over 80 lines', (t) => {
  const long = ['lib', 'check', ...FEATURES].flatMap((d) => sourceFiles(join(root, d))).flatMap((f) => longFunctions(f, 80));
  const offences = long.filter((x) => !LONG_FUNCTIONS_ALLOWED.has(x.key)).map((x) => x.at);
  t.deepEqual(offences, [], 'split it by what each part does');
  // The allowlist says what is left: an entry split since is taken off it.
  const stale = [...LONG_FUNCTIONS_ALLOWED.keys()].filter((key) => !long.some((x) => x.key === key));
  t.deepEqual(stale, [], 'split already: take these off LONG_FUNCTIONS_ALLOWED');
});
