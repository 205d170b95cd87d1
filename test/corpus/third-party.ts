/**
 * A bench of two third-party MCP servers at two published versions each (package.json
 * devDependencies, pinned under aliases), so that replay verdicts are proven on servers this
 * project did not write (issue 30):
 * - @playwright/mcp drives Debian's Chromium through a local site; its answers name files by a
 *   dash-separated timestamp (`out/page-2026-12-07T03-59-36-387Z.yml`).
 * - @wonderwhy-er/desktop-commander answers with its own pid (`"pid": 1685`, also in a log
 *   notification), child pids (`PID 1724`), epoch milliseconds under keys not named like a time
 *   (`"firstUsed": 1796616453824`), search ids (`search_1_1796616453975`) and `Runtime: 9ms`.
 *
 * Each server runs with everything it writes under one bench directory (its HOME, TMPDIR and
 * workspace), rebuilt by `reset` before every recording and replay so that every run starts from
 * the same state. `node dist/test/corpus/third-party.js reset <server> <dir>` does the same from a
 * shell (resetCommand), for `replay --calibrate --reset`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumPath } from '../helpers/browser.js';
import { cli, node, root } from '../helpers/paths.js';
import { waitForSessions } from '../helpers/recording.js';

export type ThirdPartyServer = 'playwright' | 'desktop-commander';

export interface ThirdPartyVersion {
  /** Short id used in test titles and cassette names, e.g. `playwright@0.0.70`. */
  id: string;
  server: ThirdPartyServer;
  version: string;
  /** The node_modules directory it is installed in (the package.json alias). */
  module: string;
}

const v = (server: ThirdPartyServer, version: string): ThirdPartyVersion => ({
  id: `${server}@${version}`,
  server,
  version,
  module: `${server === 'playwright' ? 'playwright-mcp' : server}-${version.replaceAll('.', '-')}`,
});

/** 0.0.70 (playwright 1.60) and 0.0.86 (playwright 1.66): the element tools (click, type, hover,
 * select_option, drag, fill_form) take `target` instead of `ref`, browser_run_code became
 * browser_run_code_unsafe, four tools were added, and several answers are worded differently.
 * Both drive the same Chromium; the script calls only tools both have. */
export const PLAYWRIGHT: readonly ThirdPartyVersion[] = [v('playwright', '0.0.70'), v('playwright', '0.0.86')];

/** 0.2.16 and 0.2.23, the last versions before the PDF/Office dependencies (0.2.24 pulls in
 * puppeteer, sharp and exceljs): list_directory recurses (new `depth`, default 2), get_config
 * reports feature flags, process tools take `verbose_timing`, get_prompts lost two actions,
 * get_recent_tool_calls was added, and the first-call onboarding text was rewritten. */
export const DESKTOP_COMMANDER: readonly ThirdPartyVersion[] = [v('desktop-commander', '0.2.16'), v('desktop-commander', '0.2.23')];

/** Where one server's state lives: everything it writes is under `<dir>/<server>/`. */
export function benchDirs(server: ThirdPartyServer, dir: string) {
  const base = join(dir, server);
  return { base, home: join(base, 'home'), tmp: join(base, 'tmp'), workspace: join(base, 'workspace') };
}

/** The server's argv after `node`. */
export function serverArgs(version: ThirdPartyVersion, dir: string): string[] {
  const pkg = join(root, 'node_modules', version.module);
  if (version.server === 'desktop-commander') return [join(pkg, 'dist', 'index.js')];
  // Headless Debian Chromium with an in-memory profile; no sandbox, since tests run as root.
  return [
    join(pkg, 'cli.js'),
    ...['--browser', 'chromium', '--executable-path', chromiumPath ?? 'chromium', '--headless', '--isolated', '--no-sandbox'],
    ...['--output-dir', join(benchDirs('playwright', dir).workspace, 'out')],
  ];
}

export function serverCommand(version: ThirdPartyVersion, dir: string): string[] {
  return [node, ...serverArgs(version, dir)];
}

/**
 * The environment of the recorded and of every replayed server: the SDK's default one (PATH,
 * SHELL, TERM, USER...), with HOME and TMPDIR in the bench. Desktop Commander keeps its config,
 * tool history and usage stats under HOME; Playwright 0.0.86 its browser registry
 * (~/.cache/ms-playwright) and a socket directory (TMPDIR/pw-<hash>), Chromium ~/.config/chromium.
 * DC_FLAG_URL: Desktop Commander 0.2.19+ fetches feature flags from its web site at start-up and
 * logs the outcome whenever it comes, before or after the handshake's log lines. A URL that does
 * not parse fails at once, offline, and its log lines always come first (before the initialize
 * answer). Its telemetry is off in the config (reset).
 */
export function serverEnv(server: ThirdPartyServer, dir: string): Record<string, string> {
  const { home, tmp } = benchDirs(server, dir);
  const env: Record<string, string> = { ...getDefaultEnvironment(), HOME: home, TMPDIR: tmp };
  if (server === 'desktop-commander') env.DC_FLAG_URL = 'offline';
  return env;
}

/** The working directory: Playwright shows file paths relative to it, its workspace root. */
export function serverCwd(server: ThirdPartyServer, dir: string): string {
  return benchDirs(server, dir).workspace;
}

/** (Re)creates one server's bench state in `dir`: the same files with the same bytes every time. */
export function reset(server: ThirdPartyServer, dir: string): void {
  const { home, tmp, workspace } = benchDirs(server, dir);
  // Emptied in place, not removed: the replaying CLI, and so the server it starts, works in the
  // workspace, and `replay --calibrate --reset` runs this between its runs. A shell started in a
  // removed directory fails (start_process: "sh: 0: getcwd() failed").
  for (const d of [home, tmp, workspace]) {
    mkdirSync(d, { recursive: true });
    for (const entry of readdirSync(d)) rmSync(join(d, entry), { recursive: true, force: true });
  }
  if (server === 'playwright') return;
  // A config file as a user would have it after turning telemetry off, so that the server
  // neither creates a default one (telemetry on) nor sends anything. It only reads and writes
  // files in the workspace, and runs its processes with /bin/sh.
  mkdirSync(join(home, '.claude-server-commander'));
  const config = {
    blockedCommands: ['sudo', 'shutdown'],
    defaultShell: '/bin/sh',
    allowedDirectories: [workspace],
    telemetryEnabled: false,
    fileWriteLineLimit: 50,
    fileReadLineLimit: 1000,
  };
  writeFileSync(join(home, '.claude-server-commander', 'config.json'), JSON.stringify(config, null, 2));
  mkdirSync(join(workspace, 'docs'));
  writeFileSync(join(workspace, 'notes.txt'), 'alpha line\nbeta line\ngamma\n');
  writeFileSync(join(workspace, 'docs', 'readme.md'), '# Bench\n\nA corpus fixture for replay.\n');
}

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** `reset` as a shell command, for `replay --calibrate --reset "<command>"`. */
export function resetCommand(server: ThirdPartyServer, dir: string): string {
  return [node, fileURLToPath(import.meta.url), 'reset', server, dir].map(quote).join(' ');
}

/** The local site Playwright browses: two pages on 127.0.0.1, a port of the system's choosing. */
export interface Site {
  url: string;
  close(): Promise<void>;
}

const PAGES: Record<string, string> = {
  // An empty icon, so the browser asks for no favicon (a 404 would be a console error that may
  // or may not have arrived when navigate answers); a console line, so answers name a log file.
  '/one.html':
    `<!doctype html><link rel="icon" href="data:,"><title>Page one</title><script>console.log('bench page one loaded')</script>` +
    `<h1>Bench page one</h1><button onclick="document.getElementById('out').textContent='Pressed!'">Press me</button>` +
    `<p id="out">Waiting</p><a href="/two.html">Go to two</a>`,
  '/two.html':
    `<!doctype html><link rel="icon" href="data:,"><title>Page two</title>` +
    `<h1>Bench page two</h1><label>Name <input name="name"></label><a href="/one.html">Back to one</a>`,
};

export async function startSite(): Promise<Site> {
  const server = createServer((req, res) => {
    const page = PAGES[req.url ?? ''];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type Json = Record<string, unknown>;
type Call = (name: string, args: Json) => Promise<string>;

/** The Playwright script: only tools both versions have, with the arguments each one's schema
 * asks for (a ref from the snapshot is `ref` in 0.0.70, `target` in 0.0.86), as a client would. */
async function playwrightSession(call: Call, tools: Tool[], site: string): Promise<void> {
  const click = tools.find((t) => t.name === 'browser_click');
  const key = click && 'target' in (click.inputSchema.properties ?? {}) ? 'target' : 'ref';
  const refOf = (snapshot: string, role: string, name: string) =>
    new RegExp(`${role} "${name}"[^\\n]*\\[ref=(\\w+)\\]`).exec(snapshot)?.[1] ?? 'e3';
  await call('browser_navigate', { url: `${site}/one.html` });
  const one = await call('browser_snapshot', {});
  await call('browser_click', { element: 'Press me button', [key]: refOf(one, 'button', 'Press me') });
  await call('browser_wait_for', { text: 'Pressed!' });
  await call('browser_navigate', { url: `${site}/two.html` });
  const two = await call('browser_snapshot', {});
  await call('browser_type', { element: 'Name textbox', [key]: refOf(two, 'textbox', 'Name'), text: 'Ada' });
  await call('browser_navigate_back', {});
  await call('browser_evaluate', { function: '() => document.title' });
  await call('browser_tabs', { action: 'list' });
  await call('browser_take_screenshot', {});
  await call('browser_console_messages', { level: 'info' });
  await call('browser_network_requests', {});
  await call('browser_navigate', {}); // invalid: no url
  await call('browser_close', {});
}

/**
 * The Desktop Commander script. No call carries an id from an earlier answer (the pid of
 * start_process, the id of start_search): replay sends the recorded arguments, which would name
 * a process or search the live server never had. The process is read from start_process's own
 * answer (its output up to its exit, within the timeout).
 */
async function desktopCommanderSession(call: Call, workspace: string): Promise<void> {
  await call('get_config', {});
  await call('set_config_value', { key: 'fileReadLineLimit', value: 500 });
  await call('get_config', {});
  await call('set_config_value', { key: 'fileReadLineLimit', value: 1000 });
  await call('list_directory', { path: workspace });
  await call('read_file', { path: join(workspace, 'notes.txt') });
  await call('write_file', { path: join(workspace, 'written.txt'), content: 'one\ntwo\n' });
  await call('edit_block', { file_path: join(workspace, 'written.txt'), old_string: 'two', new_string: 'three' });
  // One file under docs/: ripgrep's first chunk of output holds all of it, which start_search
  // waits for (at most 40 ms), so its initial results do not depend on timing.
  await call('start_search', { path: join(workspace, 'docs'), pattern: 'corpus', searchType: 'content' });
  // start_process answers when the process exits, with the output read so far: a process that
  // ends at once may exit before its output is read. This one prints, then lives on a little.
  await call('start_process', { command: 'echo bench process; sleep 0.3', timeout_ms: 5000 });
  await call('get_usage_stats', {});
  await call('read_file', {}); // invalid: no path
}

/**
 * One scripted session of the v1 SDK client against `version` through `mcp-cassette record`
 * into `cassette`, from the bench state `dir` (reset it first). `site` is the local site's URL
 * (Playwright only).
 */
export async function recordThirdPartySession(version: ThirdPartyVersion, cassette: string, dir: string, site = ''): Promise<void> {
  const client = new Client({ name: 'mcp-cassette-bench', version: '1.0.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({
    command: node,
    args: [cli, 'record', '--log-level', 'warn', '--cassette', cassette, '--', ...serverArgs(version, dir)],
    env: serverEnv(version.server, dir),
    cwd: serverCwd(version.server, dir),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => {});
  await client.connect(transport);
  try {
    if (client.getServerCapabilities()?.logging) await client.setLoggingLevel('debug');
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor !== undefined ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    // Errors are what the session records, not failures of the script.
    const call: Call = async (name, args) => {
      try {
        const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
        return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      } catch {
        return '';
      }
    };
    if (version.server === 'playwright') await playwrightSession(call, tools, site);
    else await desktopCommanderSession(call, benchDirs(version.server, dir).workspace);
  } finally {
    await client.close();
  }
  await waitForSessions(cassette, 1);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'reset') {
  const [server, dir] = process.argv.slice(3);
  if ((server !== 'playwright' && server !== 'desktop-commander') || !dir) {
    console.error('usage: node third-party.js reset playwright|desktop-commander <dir>');
    process.exit(2);
  }
  reset(server, dir);
}
