/**
 * A fresh server process per replayed session, spawned without a shell (argv as given). The
 * process gets its own process group so that a server started through a wrapper (`npx`, a shell
 * script) is ended with everything it started; nothing outlives the replay.
 */
import { messageText } from '../../lib/json-depth.js';
import type { ChildProcess } from 'node:child_process';
import { killGroup, spawnStdioServer } from '../../lib/server-process.js';
import type { HttpExchange } from '../../lib/cassette/cassette.js';
import type { RecordedMessage } from '../../lib/message.js';
import type { LiveConnection } from './connection.js';
import type { LiveTape } from './tape.js';

export interface StdioOptions {
  command: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** How long to wait after closing stdin before SIGTERM, and again before SIGKILL. */
  graceMs?: number;
  /** Keeps every byte of the three pipes, for `--update`. */
  tape?: LiveTape;
}

export class StdioConnection implements LiveConnection {
  onMessage: (message: unknown) => void = () => {};
  onFailure: LiveConnection['onFailure'] = () => {};
  /** Lines the server wrote to stdout that are not JSON (a spec violation on stdio). */
  readonly noise: string[];
  readonly stderrTail: string[];
  readonly #child: ChildProcess;
  readonly #graceMs: number;
  readonly #exited: Promise<void>;
  #closing = false;
  #label: string;
  readonly #tape: LiveTape | undefined;

  constructor(options: StdioOptions) {
    this.#label = options.command.join(' ');
    this.#graceMs = options.graceMs ?? 1000;
    this.#tape = options.tape;
    const server = spawnStdioServer(
      options,
      (json) => this.onMessage(json),
      (channel, chunk) => this.#tape?.stdio(channel, chunk),
    );
    this.#child = server.child;
    this.noise = server.noise;
    this.stderrTail = server.stderrTail;
    this.#exited = new Promise((resolve) => {
      this.#child.on('error', (err: NodeJS.ErrnoException) => {
        const hint =
          err.code === 'ENOENT'
            ? 'the command was not found; check the server command after --'
            : 'check the server command after -- and its permissions';
        this.onFailure({
          code: 'MCPC_REPLAY_SPAWN_FAILED',
          message: `could not start the server \`${this.#label}\`: ${err.message} (${hint})`,
        });
        resolve();
      });
      this.#child.on('close', (code, signal) => {
        if (this.#tape) this.#tape.exit = { code, signal };
        if (!this.#closing) {
          const how = signal ? `was killed by ${signal}` : `exited with code ${String(code)}`;
          const tail = this.stderrTail.length ? `; its stderr ended with: ${this.stderrTail.slice(-3).join(' | ')}` : '';
          this.onFailure({
            code: 'MCPC_REPLAY_SERVER_EXITED',
            message: `the server \`${this.#label}\` ${how} in the middle of the session${tail}`,
          });
        }
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  send(message: Record<string, unknown>, _recorded: RecordedMessage, _exchange?: HttpExchange, text?: string): void {
    if (!this.#child.stdin!.writable) return;
    const line = Buffer.from((text ?? messageText(message)) + '\n', 'utf8');
    this.#tape?.stdio('stdin', line);
    this.#child.stdin!.write(line);
  }

  async close(): Promise<void> {
    await this.#end();
    this.#tape?.end();
  }

  async #end(): Promise<void> {
    this.#closing = true;
    if (this.#child.exitCode !== null || this.#child.signalCode !== null || this.#child.pid === undefined) {
      await this.#exited;
      return;
    }
    this.#child.stdin!.end();
    const waitFor = (ms: number) =>
      Promise.race([this.#exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    if (await waitFor(this.#graceMs)) return;
    killGroup(this.#child, 'SIGTERM');
    if (await waitFor(this.#graceMs)) return;
    killGroup(this.#child, 'SIGKILL');
    await this.#exited;
  }
}
