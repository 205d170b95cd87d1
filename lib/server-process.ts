import { parseMessageText } from './json-depth.js';
import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Servers that replay, serve and probe start themselves: spawned without a shell, in a process
 * group of their own (so ending one ends whatever it started), and killed when our process ends,
 * whatever way it ends.
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

/** One stdout line of a stdio MCP peer: its JSON, or the text when it is not JSON; blank lines are nothing. */
export function parseLine(frame: Buffer): { json: unknown } | { noise: string } | undefined {
  const text = frame.toString('utf8').replace(/\r$/, '');
  if (text.trim() === '') return undefined;
  try {
    return { json: parseMessageText(text) };
  } catch {
    return { noise: text };
  }
}
