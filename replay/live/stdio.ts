/**
 * A fresh server process per replayed session, spawned without a shell (argv as given). The
 * process gets its own process group so that a server started through a wrapper (`npx`, a shell
 * script) is ended with everything it started; nothing outlives the replay.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { LineSplitter } from '../../lib/framing/line-splitter.js';
import type { RecordedMessage } from '../../lib/message.js';
import type { LiveConnection } from './connection.js';

export interface StdioOptions {
  command: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** How long to wait after closing stdin before SIGTERM, and again before SIGKILL. */
  graceMs?: number;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
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
  // Last resort: whatever way our process ends, no server it started survives it.
  process.on('exit', () => {
    for (const child of live) killGroup(child, 'SIGKILL');
  });
}

export class StdioConnection implements LiveConnection {
  onMessage: (message: unknown) => void = () => {};
  onFailure: LiveConnection['onFailure'] = () => {};
  /** Lines the server wrote to stdout that are not JSON (a spec violation on stdio). */
  readonly noise: string[] = [];
  readonly stderrTail: string[] = [];
  readonly #child: ChildProcess;
  readonly #graceMs: number;
  readonly #exited: Promise<void>;
  #closing = false;
  #label: string;

  constructor(options: StdioOptions) {
    installExitHook();
    const [cmd, ...args] = options.command;
    this.#label = options.command.join(' ');
    this.#graceMs = options.graceMs ?? 1000;
    this.#child = spawn(cmd!, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: process.platform !== 'win32',
      shell: false,
    });
    live.add(this.#child);
    const splitter = new LineSplitter((frame) => {
      const text = frame.toString('utf8').replace(/\r$/, '');
      if (text.trim() === '') return;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        this.noise.push(text.slice(0, 200));
        return;
      }
      this.onMessage(json);
    });
    this.#child.stdout!.on('data', (c: Buffer) => splitter.push(c));
    this.#child.stderr!.on('data', (c: Buffer) => {
      for (const line of c.toString('utf8').split('\n')) if (line.trim()) this.stderrTail.push(line);
      if (this.stderrTail.length > 10) this.stderrTail.splice(0, this.stderrTail.length - 10);
    });
    this.#child.stdin!.on('error', () => {}); // EPIPE after a crash is reported through 'exit'
    this.#exited = new Promise((resolve) => {
      this.#child.on('error', (err: NodeJS.ErrnoException) => {
        live.delete(this.#child);
        const hint = err.code === 'ENOENT' ? 'the command was not found; check the server command after --' : 'check the server command after -- and its permissions';
        this.onFailure({ code: 'MCPC_REPLAY_SPAWN_FAILED', message: `could not start the server \`${this.#label}\`: ${err.message} (${hint})` });
        resolve();
      });
      this.#child.on('close', (code, signal) => {
        live.delete(this.#child);
        if (!this.#closing) {
          const how = signal ? `was killed by ${signal}` : `exited with code ${String(code)}`;
          const tail = this.stderrTail.length ? `; its stderr ended with: ${this.stderrTail.slice(-3).join(' | ')}` : '';
          this.onFailure({ code: 'MCPC_REPLAY_SERVER_EXITED', message: `the server \`${this.#label}\` ${how} in the middle of the session${tail}` });
        }
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  send(message: Record<string, unknown>, _recorded: RecordedMessage): void {
    if (!this.#child.stdin!.writable) return;
    this.#child.stdin!.write(JSON.stringify(message) + '\n');
  }

  async close(): Promise<void> {
    this.#closing = true;
    if (this.#child.exitCode !== null || this.#child.signalCode !== null || this.#child.pid === undefined) {
      await this.#exited;
      return;
    }
    this.#child.stdin!.end();
    const waitFor = (ms: number) => Promise.race([this.#exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    if (await waitFor(this.#graceMs)) return;
    killGroup(this.#child, 'SIGTERM');
    if (await waitFor(this.#graceMs)) return;
    killGroup(this.#child, 'SIGKILL');
    await this.#exited;
  }
}
