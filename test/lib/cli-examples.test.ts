/**
 * Every command line a newcomer is shown parses: the examples of every command's `--help` (and of
 * `mcp-cassette --help`) and the `mcp-cassette …` lines of the shell blocks in README.md and
 * docs/, each put through the CLI's own parser (parseCommandLine: the parser the CLI runs, with
 * no handler run). And the help shows each example whole, at the terminal's width.
 */
import test, { type ExecutionContext } from 'ava';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandList, parseCommandLine } from '../../lib/cli-commands.js';
import { COMMAND_HELP, ROOT_HELP } from '../../lib/cli-help.js';
import { cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { shellWords } from '../helpers/shell-words.js';

/** Where a command line was shown, and the words after the program's name. */
interface Shown {
  where: string;
  line: string;
  argv: string[];
}

function helpExamples(): Shown[] {
  const out: Shown[] = ROOT_HELP.examples.map(([line]) => ({ where: 'mcp-cassette --help', line, argv: shellWords(line).slice(1) }));
  for (const c of commandList) {
    for (const [line] of (c.help ?? COMMAND_HELP[c.name])?.examples ?? []) {
      out.push({ where: `${c.name} --help`, line, argv: shellWords(line).slice(1) });
    }
  }
  return out;
}

/** The `mcp-cassette …` and `npx mcp-cassette …` lines of the sh and bash blocks (a line ending
 * in `\` goes on on the next). */
function docsCommands(): Shown[] {
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((n) => n.endsWith('.md'))
      .map((n) => join('docs', n)),
  ];
  const out: Shown[] = [];
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    let shell: boolean | undefined;
    for (let i = 0; i < lines.length; i++) {
      const fence = /^\s*```(\w*)/.exec(lines[i]!);
      if (fence) {
        shell = shell === undefined ? fence[1] === 'sh' || fence[1] === 'bash' : undefined;
        continue;
      }
      if (!shell) continue;
      const at = i + 1;
      let line = lines[i]!.trim();
      if (!/^(npx )?mcp-cassette /.test(line)) continue;
      while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]!.trim()}`;
      const words = shellWords(line);
      out.push({ where: `${file}:${at}`, line, argv: words.slice(words[0] === 'npx' ? 2 : 1) });
    }
  }
  return out;
}

/** Each line that does not parse, with the CLI's error. */
async function refused(shown: Shown[]): Promise<string[]> {
  const out: string[] = [];
  for (const s of shown) {
    try {
      if (!(await parseCommandLine(s.argv))) out.push(`${s.where}: ${s.line}: nothing parsed`);
    } catch (err) {
      out.push(`${s.where}: ${s.line}\n  ${(err as Error).message}`);
    }
  }
  return out;
}

test('every example of every --help parses (no unknown option, no missing value or argument)', async (t) => {
  const shown = helpExamples();
  t.true(shown.length > commandList.length, 'examples found');
  for (const s of shown) t.is(shellWords(s.line)[0], '$0', `${s.where}: starts with the program`);
  t.deepEqual(await refused(shown), []);
});

test('every mcp-cassette command line of the shell blocks in README.md and docs/ parses', async (t) => {
  const shown = docsCommands();
  t.true(shown.length >= 30, `found ${shown.length}`);
  t.deepEqual(await refused(shown), []);
});

test('the parser refuses what the CLI refuses (the check above can fail)', async (t) => {
  const bad = await t.throwsAsync(parseCommandLine(['serve', 'w.cassette.json', '--record', 'new_episodes', '--', 'node', 'w.js']));
  t.regex(bad!.message, /unknown option --record/);
  await t.throwsAsync(parseCommandLine(['replay', 'w.cassette.json', '--timeout']), { message: /--timeout needs a value/ });
  await t.throwsAsync(parseCommandLine(['show']), { message: /missing <cassette>/ });
});

/** The help of every command, as a pipe gets it (80 columns). */
async function helpText(t: ExecutionContext, args: string[]): Promise<string> {
  const r = await collect(spawnTracked(t, node, [cli, ...args, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] }));
  t.is(r.code, 0, r.stderr);
  return r.stdout.toString();
}

test('--help shows each example whole on a line of its own, however long (80 columns through a pipe)', async (t) => {
  const byWhere = new Map<string, string[]>();
  for (const s of helpExamples()) byWhere.set(s.where, [...(byWhere.get(s.where) ?? []), s.line]);
  for (const [where, lines] of byWhere) {
    const text = await helpText(t, where === 'mcp-cassette --help' ? [] : [where.split(' ')[0]!]);
    const shown = text.split('\n');
    for (const line of lines) t.true(shown.includes(`  ${line.replace('$0', 'mcp-cassette')}`), `${where}: ${line}\n${text}`);
    // Only an example or the docs path may overflow the 80 columns of a pipe.
    const over = shown.filter(
      (l) => l.length > 80 && !lines.some((e) => l === `  ${e.replace('$0', 'mcp-cassette')}`) && !l.startsWith('Docs: '),
    );
    t.deepEqual(over, [], where);
  }
});

/** `script` (util-linux) gives the CLI a terminal of the width asked for. */
const noPty = (() => {
  if (process.platform !== 'linux') return 'not Linux';
  try {
    execFileSync('script', ['-q', '-c', 'true', '/dev/null'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'no `script` command (util-linux)';
  }
})();
const withPty = noPty === undefined ? test : test.skip;
if (noPty) console.log(`# ${noPty}: the terminal-width help test is skipped; install util-linux to run it`);

withPty('--help on a 200-column terminal is laid out for 200 columns, examples whole', async (t) => {
  const command = `stty cols 200 rows 50; exec ${node} ${cli} wrap --help`;
  const r = await collect(spawnTracked(t, 'script', ['-q', '-e', '-c', command, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] }));
  t.is(r.code, 0, r.stderr);
  const lines = r.stdout.toString().replaceAll('\r', '').split('\n');
  t.true(lines.includes('  mcp-cassette wrap ~/.config/Claude/claude_desktop_config.json'), r.stdout.toString());
  const widest = Math.max(...lines.map((l) => l.length));
  t.true(widest > 80 && widest <= 200, `widest line ${widest}`);
  t.true(
    lines.some((l) => l.includes('--cassette-dir') && l.includes('~/.local/share/mcp-cassette/cassettes on Linux')),
    'a description that needs 80+ columns stays on one line',
  );
});
