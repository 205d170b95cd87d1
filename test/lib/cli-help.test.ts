import test from 'ava';
import { existsSync } from 'node:fs';
import { commandList } from '../../lib/cli-commands.js';
import { COMMAND_HELP } from '../../lib/cli-help.js';
import { cli, node } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';

// Every command, the ones other features add included: its `--help` shows examples, its exit
// codes and the docs page (shipped in the package) that explains it.
for (const c of commandList) {
  test(`${c.name} --help has examples, exit codes and its docs page`, async (t) => {
    const r = await collect(spawnTracked(t, node, [cli, c.name, '--help']));
    t.is(r.code, 0);
    const text = r.stdout.toString();
    const help = c.help ?? COMMAND_HELP[c.name];
    t.truthy(help, `${c.name} has help (its module's \`help\`, or lib/cli-help.ts)`);
    t.regex(text, /\nExamples:\n {2}mcp-cassette /, 'examples, with the program name');
    t.regex(text, /\nExit codes:\n {2}\S/);
    for (const [code] of help!.exitCodes) t.true(text.includes(`  ${code}`), `exit code ${code} listed`);
    const docs = /\nDocs:\s+(\S+)/.exec(text)?.[1];
    t.truthy(docs, 'a docs line');
    t.true(existsSync(docs!), `${docs} exists`);
  });
}
