import { existsSync, readFileSync, unlinkSync, writeFileSync, renameSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'jsonc-parser';
import { CassetteError, ioReason } from '../../lib/errors.js';
import { cliPath } from '../../lib/paths.js';
import { defaultCassetteDir, stableCliPath } from './data-dir.js';
import { isHttpEntry, parseHostConfig, readHostConfig, setValue, type HostConfig, type ServerEntry } from './host-config.js';

export interface WrapOptions {
  servers?: string[];
  /** Also wrap the HTTP (`url`) entries not named in `servers` (`--http`). */
  http?: boolean;
  /** Each server records into `<cassetteDir>/<server name>/` (default: the per-user data folder,
   * data-dir.ts). */
  cassetteDir?: string;
  /** `record` options every wrapped entry gets (rotation and retention: `--keep-files 50`...). */
  recordOptions?: string[];
  /** Port for the first HTTP entry's proxy (the next ones count up); default: free ports. */
  port?: number;
  /** The node binary and CLI the host should run; absolute, because hosts may start servers with
   * no working directory and a reduced PATH. */
  node?: string;
  cli?: string;
}

export interface WrapReport {
  /** For HTTP entries also the proxy URL the entry now points at and the `record --upstream`
   * command to run (wrap starts nothing itself). */
  changed: { name: string; cassette?: string; url?: string; command?: string[] }[];
  skipped: { name: string; reason: string }[];
  backup?: string;
  /** Something the user should know about the entries written (an npx cache path). */
  note?: string;
}

export function backupPath(configPath: string): string {
  return `${configPath}.mcp-cassette.bak`;
}

/** Where wrap remembers the original URLs of HTTP entries, next to the config. */
export function statePath(configPath: string): string {
  return `${configPath}.mcp-cassette.state.json`;
}

interface WrapState {
  version: 1;
  entries: Record<string, { url: string; proxyUrl: string }>;
}

function readState(configPath: string): WrapState {
  const path = statePath(configPath);
  if (!existsSync(path)) return { version: 1, entries: {} };
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as WrapState;
  } catch (err) {
    throw new CassetteError(
      'MCPC_CONFIG_INVALID',
      `${path} cannot be parsed (${(err as Error).message}); it records the original URLs of wrapped HTTP entries`,
    );
  }
}

function writeState(configPath: string, state: WrapState): void {
  if (Object.keys(state.entries).length === 0) {
    if (existsSync(statePath(configPath))) unlinkSync(statePath(configPath));
    return;
  }
  atomicWrite(statePath(configPath), JSON.stringify(state, null, 2) + '\n');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The legacy HTTP+SSE transport (2024-11-05) has a GET /sse + POST /messages pair of endpoints
 * that the Streamable HTTP proxy does not speak. */
function isLegacySse(entry: ServerEntry): boolean {
  if (entry.type === 'sse') return true;
  try {
    return new URL(String(entry.url)).pathname.endsWith('/sse');
  } catch {
    return false;
  }
}

/** A wrapped entry runs `<node> <cli.js> record ... -- <original command> <original args>`. */
export function unwrappedCommand(entry: ServerEntry): { command: string; args: string[] } | undefined {
  if (!Array.isArray(entry.args) || entry.args.length < 4) return undefined;
  const args = entry.args as unknown[];
  if (typeof args[0] !== 'string' || basename(args[0]) !== 'cli.js' || args[1] !== 'record') return undefined;
  const sep = args.indexOf('--');
  if (sep === -1 || sep + 1 >= args.length) return undefined;
  const rest = args.slice(sep + 1).map(String);
  return { command: rest[0]!, args: rest.slice(1) };
}

function selected(config: HostConfig, wanted: string[] | undefined): string[] {
  const names = Object.keys(config.servers);
  for (const w of wanted ?? []) {
    if (!names.includes(w)) {
      throw new CassetteError(
        'MCPC_USAGE',
        `no server named ${JSON.stringify(w)} in ${config.path}; it has: ${names.join(', ') || 'none'}`,
      );
    }
  }
  return wanted && wanted.length > 0 ? wanted : names;
}

/** Why an HTTP entry was not wrapped by default. */
const HTTP_LEFT_ALONE = (name: string): string =>
  `an HTTP (url) entry: wrapping it points the host at a local recording proxy that you must start yourself (wrap starts nothing), so it is wrapped only on request: --http, or --server ${JSON.stringify(name)}`;

function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-') || 'server';
}

/** One wrap under way: the config's text as edited so far, and what each entry became. */
interface Wrapping {
  config: HostConfig;
  state: WrapState;
  options: WrapOptions;
  /** Where each server's cassette folder goes. */
  dir: string;
  node: string;
  cli: string;
  extra: string[];
  report: WrapReport;
  text: string;
  /** `--port`: the next port to give an HTTP entry's proxy (else a free one each). */
  nextPort: number | undefined;
}

export async function wrapConfig(path: string, options: WrapOptions = {}): Promise<WrapReport> {
  const configPath = resolve(path);
  const config = readHostConfig(configPath);
  const state = readState(configPath);
  const dir = resolve(options.cassetteDir ?? defaultCassetteDir());
  const node = options.node ?? process.execPath;
  const stable = stableCliPath(options.cli ?? cliPath);
  const w: Wrapping = {
    config,
    state,
    options,
    dir,
    node,
    cli: stable.path,
    extra: options.recordOptions ?? [],
    report: { changed: [], skipped: [], ...(stable.note ? { note: stable.note } : {}) },
    text: config.text,
    nextPort: options.port,
  };
  const report = w.report;
  for (const name of selected(config, options.servers)) {
    const entry = config.servers[name]!;
    if (isHttpEntry(entry)) await wrapHttp(w, name, entry);
    else wrapStdio(w, name, entry);
  }
  if (report.changed.length > 0) {
    const backup = backupPath(configPath);
    if (!existsSync(backup)) writeFileSync(backup, config.text);
    report.backup = backup;
    atomicWrite(configPath, w.text);
    writeState(configPath, w.state);
  }
  return report;
}

/** An HTTP entry points at a local recording proxy, which the user starts (the command in the
 * report); only on request. */
async function wrapHttp(w: Wrapping, name: string, entry: ServerEntry): Promise<void> {
  const { options, report } = w;
  const known = w.state.entries[name];
  if (known && entry.url === known.proxyUrl) {
    report.skipped.push({ name, reason: 'already wrapped' });
    return;
  }
  if (!options.http && !options.servers?.includes(name)) {
    // Its new URL would be a local proxy that nothing starts (wrap starts none), and the host
    // would lose the server: only on request.
    report.skipped.push({ name, reason: HTTP_LEFT_ALONE(name) });
    return;
  }
  if (typeof entry.url !== 'string') {
    report.skipped.push({ name, reason: 'no "url" string' });
    return;
  }
  if (isLegacySse(entry)) {
    report.skipped.push({ name, reason: 'legacy HTTP+SSE endpoint: left alone, the proxy speaks Streamable HTTP' });
    return;
  }
  let upstream: URL;
  try {
    upstream = new URL(entry.url);
  } catch {
    report.skipped.push({ name, reason: `"url" ${JSON.stringify(entry.url)} is not a URL` });
    return;
  }
  const port = w.nextPort ?? (await freePort());
  if (w.nextPort !== undefined) w.nextPort += 1;
  const proxyUrl = `http://127.0.0.1:${port}${upstream.pathname}${upstream.search}`;
  const cassette = join(w.dir, safeFileName(name));
  w.text = setValue(w.text, [w.config.key, name, 'url'], proxyUrl);
  w.state.entries[name] = { url: entry.url, proxyUrl };
  report.changed.push({
    name,
    cassette,
    url: proxyUrl,
    command: [
      w.node,
      w.cli,
      'record',
      '--upstream',
      entry.url,
      '--listen',
      `127.0.0.1:${port}`,
      '--cassette-dir',
      cassette,
      ...w.extra,
      '--label',
      name,
    ],
  });
}

/** A stdio entry's command becomes the recorder's, with the server's command after `--`. */
function wrapStdio(w: Wrapping, name: string, entry: ServerEntry): void {
  if (typeof entry.command !== 'string') {
    w.report.skipped.push({ name, reason: 'no "command" string' });
    return;
  }
  if (unwrappedCommand(entry)) {
    w.report.skipped.push({ name, reason: 'already wrapped' });
    return;
  }
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  // Each launch of the server adds a cassette to its folder, under the same retention.
  const cassette = join(w.dir, safeFileName(name));
  w.text = setValue(w.text, [w.config.key, name, 'command'], w.node);
  w.text = setValue(
    w.text,
    [w.config.key, name, 'args'],
    [w.cli, 'record', '--cassette-dir', cassette, ...w.extra, '--label', name, '--', entry.command, ...args],
  );
  w.report.changed.push({ name, cassette });
}

export async function unwrapConfig(path: string, options: { servers?: string[] } = {}): Promise<WrapReport> {
  const configPath = resolve(path);
  const config = readHostConfig(configPath);
  const backup = backupPath(configPath);
  const original = existsSync(backup) ? parseHostConfig(backup, readFileSync(backup, 'utf8')) : undefined;
  const state = readState(configPath);
  const report: WrapReport = { changed: [], skipped: [] };
  let text = config.text;
  for (const name of selected(config, options.servers)) {
    const entry = config.servers[name]!;
    const http = state.entries[name];
    if (http) {
      if (entry.url !== http.proxyUrl) {
        report.skipped.push({ name, reason: `its url changed since wrap (now ${JSON.stringify(entry.url)}); left alone` });
        continue;
      }
      text = setValue(text, [config.key, name, 'url'], http.url);
      delete state.entries[name];
      report.changed.push({ name });
      continue;
    }
    const inner = unwrappedCommand(entry);
    if (!inner) {
      report.skipped.push({ name, reason: 'not wrapped' });
      continue;
    }
    const before = original?.servers[name];
    const sameAsBackup =
      before &&
      before.command === inner.command &&
      isDeepStrictEqual(Array.isArray(before.args) ? before.args.map(String) : [], inner.args);
    text = setValue(text, [config.key, name, 'command'], inner.command);
    // The backup tells whether the entry had an `args` key at all; without it, keep an array.
    const args = sameAsBackup ? before.args : inner.args;
    text = setValue(text, [config.key, name, 'args'], args);
    report.changed.push({ name });
  }
  if (report.changed.length === 0) return report;
  const restored = parseHostConfig(configPath, text);
  const stillWrapped = Object.values(restored.servers).some((e) => unwrappedCommand(e)) || Object.keys(state.entries).length > 0;
  if (
    original &&
    !stillWrapped &&
    isDeepStrictEqual(restored.servers, original.servers) &&
    isDeepStrictEqual(withoutServers(text, config.key), withoutServers(original.text, original.key))
  ) {
    // Nothing else changed since wrap: give back the original bytes, formatting included.
    text = original.text;
  }
  atomicWrite(configPath, text);
  writeState(configPath, state);
  if (!stillWrapped && original) {
    unlinkSync(backup);
  } else if (original) {
    report.backup = backup;
  }
  return report;
}

function withoutServers(text: string, key: string): Record<string, unknown> {
  const { [key]: _servers, ...rest } = parse(text, [], { allowTrailingComma: true }) as Record<string, unknown>;
  return rest;
}

function atomicWrite(path: string, text: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.mcp-cassette.tmp`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (err) {
    throw new CassetteError('MCPC_FILE_UNWRITABLE', `host config ${path} cannot be written (${ioReason(err)}); the file is unchanged`, {
      cause: err,
    });
  }
}
