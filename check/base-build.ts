/**
 * Base-vs-PR mode: fresh cassettes recorded from the base build, which `check` then replays
 * against the PR build. The client side is either each committed cassette's own (replayed against
 * the base build through the recording proxy) or a client script the user names, run once with
 * the proxied base build in its environment:
 *   MCP_CASSETTE_SERVER       the stdio server command line, shell-quoted (stdio base builds)
 *   MCP_CASSETTE_SERVER_ARGV  the same as a JSON array of words
 *   MCP_CASSETTE_URL          the MCP endpoint to connect to (HTTP base builds)
 */
import { spawn } from 'node:child_process';
import { basename, join } from 'node:path';
import { existsSync } from 'node:fs';
import { CassetteError } from '../lib/errors.js';
import { replayCassette, type ReplayOptions } from '../replay/index.js';
import { startRecording, type Target } from './recording-target.js';

/** A shell command line as a target's words: run through the platform's shell. */
export function shellCommand(line: string): string[] {
  return process.platform === 'win32' ? ['cmd.exe', '/d', '/s', '/c', line] : ['/bin/sh', '-c', line];
}

const quote = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

export interface FreshCassette {
  path: string;
  /** The committed cassette whose client side made it; absent for a client script. */
  source?: string;
}

/** Replays each committed cassette against the base build, recording what the base build answers. */
export async function recordFromCassettes(
  cassettes: readonly string[],
  base: Target,
  dir: string,
  replay: Omit<ReplayOptions, 'command' | 'url'>,
  /** Each cassette's place in the whole run (a part of a sharded check numbers its fresh
   * cassettes as the unsharded run would). */
  positions: readonly number[] = cassettes.map((_, i) => i),
): Promise<FreshCassette[]> {
  const out: FreshCassette[] = [];
  for (const [n, source] of cassettes.entries()) {
    const path = join(dir, `${String(positions[n]! + 1).padStart(3, '0')}-${basename(source)}`);
    const rec = await startRecording(base, path);
    let result;
    try {
      result = await replayCassette(source, { ...replay, ...rec.target });
    } finally {
      await rec.close();
    }
    if (result.outcome === 'error' || !existsSync(path)) {
      throw new CassetteError(
        'MCPC_BASE_BUILD_FAILED',
        `could not record ${source} from the base build: ${result.error?.message ?? 'the recording proxy saved nothing'}; check --baseline-build / --baseline-url`,
      );
    }
    out.push({ path, source });
  }
  return out;
}

/** Runs the client script once against the base build, recording its traffic. */
export async function recordFromClient(client: string, base: Target, dir: string, err: NodeJS.WritableStream): Promise<FreshCassette> {
  const path = join(dir, 'client.cassette.json');
  const rec = await startRecording(base, path);
  let code: number | null;
  try {
    const env = {
      ...process.env,
      ...('command' in rec.target
        ? { MCP_CASSETTE_SERVER: rec.target.command.map(quote).join(' '), MCP_CASSETTE_SERVER_ARGV: JSON.stringify(rec.target.command) }
        : { MCP_CASSETTE_URL: rec.target.url }),
    };
    const [cmd, ...args] = shellCommand(client);
    const child = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    // Its output is diagnostics: stdout is ours (the report), so both go to stderr.
    child.stdout.on('data', (c: Buffer) => err.write(c));
    child.stderr.on('data', (c: Buffer) => err.write(c));
    code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (c) => resolve(c));
    });
  } finally {
    await rec.close();
  }
  if (code !== 0) throw new CassetteError('MCPC_BASE_BUILD_FAILED', `the client script \`${client}\` exited with code ${String(code)}`);
  if (!existsSync(path)) {
    throw new CassetteError(
      'MCPC_BASE_BUILD_FAILED',
      `the client script \`${client}\` sent nothing to the base build; it must connect to $MCP_CASSETTE_SERVER (stdio) or $MCP_CASSETTE_URL (HTTP)`,
    );
  }
  return { path };
}
