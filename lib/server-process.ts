import { parseMessageText } from './json-depth.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { LineSplitter } from './framing/line-splitter.js';

/**
 * Servers that replay, serve and probe start themselves: spawned without a shell, in a process
 * group of their own (so ending one ends whatever it started), and killed when our process ends,
 * whatever way it ends. A stdio server's output is split into messages here too (spawnStdioServer),
 * once for replay's connection and the probes' raw client.
 */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform !== 'win32') process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort: no server we started survives us.
  process.on('exit', () => {
    for (const child of live) killGroup(child, 'SIGKILL');
  });
}

export function spawnServer(command: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  installExitHook();
  const [cmd, ...args] = command;
  const child = spawn(cmd!, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: process.platform !== 'win32',
    shell: false,
  });
  live.add(child);
  child.once('close', () => live.delete(child));
  child.once('error', () => live.delete(child));
  return child;
}

/** A stdio MCP server started by `spawnStdioServer`, with what it wrote that is no message. */
export interface StdioServer {
  child: ChildProcess;
  /** Lines the server wrote to stdout that are not JSON (a spec violation on stdio), cut to 200
   * characters each. */
  noise: string[];
  /** The last 10 lines the server wrote to stderr that are not blank (for the message that says
   * why it ended). */
  stderrTail: string[];
}

/**
 * Spawns a stdio MCP server (spawnServer) and splits its stdout into lines: each JSON line goes
 * to `onJson`, the others to `noise`; stderr is kept as a tail. `onBytes` sees each chunk of
 * stdout and stderr as it came, before it is split. A write to a server that died (EPIPE) is not
 * an error here: its exit says so. The caller listens for `error` and `close` on the child.
 */
export function spawnStdioServer(
  options: { command: readonly string[]; cwd?: string; env?: NodeJS.ProcessEnv },
  onJson: (json: unknown) => void,
  onBytes?: (channel: 'stdout' | 'stderr', chunk: Buffer) => void,
): StdioServer {
  const child = spawnServer(options.command, {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  const server: StdioServer = { child, noise: [], stderrTail: [] };
  const splitter = new LineSplitter((frame) => {
    const line = parseLine(frame);
    if (line && 'noise' in line) server.noise.push(line.noise.slice(0, 200));
    else if (line) onJson(line.json);
  });
  child.stdout!.on('data', (c: Buffer) => {
    onBytes?.('stdout', c);
    splitter.push(c);
  });
  child.stderr!.on('data', (c: Buffer) => {
    onBytes?.('stderr', c);
    const tail = server.stderrTail;
    for (const line of c.toString('utf8').split('\n')) if (line.trim()) tail.push(line);
    if (tail.length > 10) tail.splice(0, tail.length - 10);
  });
  child.stdin!.on('error', () => {});
  return server;
}

/** One stdout line of a stdio MCP peer: its JSON, or the text when it is not JSON; blank lines are nothing. */
function parseLine(frame: Buffer): { json: unknown } | { noise: string } | undefined {
  const text = frame.toString('utf8').replace(/\r$/, '');
  if (text.trim() === '') return undefined;
  try {
    return { json: parseMessageText(text) };
  } catch {
    return { noise: text };
  }
}
