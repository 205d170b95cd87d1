/**
 * A one-line progress bar on stderr while a long cassette replays, for a person at a terminal.
 * Never in CI and never without a terminal: a bar is carriage returns and escape codes, which
 * only garble logs.
 */
import type { RecordedSession } from '../lib/cassette/cassette.js';
import type { SessionResult } from './types.js';

/** Cassettes with at least this many sessions get a bar (shorter ones finish before it helps). */
export const LONG_CASSETTE_SESSIONS = 3;

/** Variables CI services set (the ones `ci-info` and most CLIs check first). */
export const CI_VARIABLES = [
  'CI',
  'CONTINUOUS_INTEGRATION',
  'BUILD_NUMBER',
  'GITHUB_ACTIONS',
  'GITLAB_CI',
  'BUILDKITE',
  'CIRCLECI',
  'TRAVIS',
  'TF_BUILD',
  'JENKINS_URL',
  'TEAMCITY_VERSION',
];

export function isCI(env: NodeJS.ProcessEnv): boolean {
  return CI_VARIABLES.some((name) => {
    const v = env[name];
    return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
  });
}

export interface ProgressContext {
  /** Whether stderr is a terminal. */
  isTTY: boolean | undefined;
  env: NodeJS.ProcessEnv;
  sessions: number;
  /** `--quiet`: no console output at all. */
  quiet?: boolean;
  /** `--no-progress` gives false. */
  enabled?: boolean;
}

/** Whether to draw a bar: on a terminal, outside CI, not dumb, not quiet, for a long cassette. */
export function shouldShowProgress(c: ProgressContext): boolean {
  if (c.enabled === false || c.quiet) return false;
  if (c.isTTY !== true) return false;
  if (isCI(c.env)) return false;
  if (c.env.TERM === 'dumb') return false;
  return c.sessions >= LONG_CASSETTE_SESSIONS;
}

export interface ProgressStream {
  write(text: string): unknown;
  columns?: number;
}

/** The bar itself: redrawn in place (`\r`, erase line) when a session starts and when it ends. */
export class ProgressBar {
  #done = 0;
  #breaking = 0;
  #current = '';
  #drawn = false;

  constructor(
    private readonly stream: ProgressStream,
    private readonly total: number,
  ) {}

  start(index: number, session: RecordedSession): void {
    this.#current = `session ${index}${session.label ? ` (${session.label})` : ''}: ${session.transport}${session.protocol.revision ? ` ${session.protocol.revision}` : ''}`;
    this.#draw();
  }

  done(result: SessionResult): void {
    this.#done += 1;
    this.#breaking += result.interactions.filter((i) => i.outcome === 'breaking').length;
    this.#draw();
  }

  /** Erases the bar, so the report that follows starts on a clean line. */
  finish(): void {
    if (this.#drawn) this.stream.write('\r\u001b[2K');
    this.#drawn = false;
  }

  /** The text of the bar, without the control codes (exported for tests). */
  line(width = this.#width()): string {
    const cells = 20;
    const filled = this.total ? Math.round((this.#done / this.total) * cells) : cells;
    const bar = '█'.repeat(filled) + '░'.repeat(cells - filled);
    const text = `replay ${bar} ${this.#done}/${this.total} sessions${this.#breaking ? `, ${this.#breaking} breaking` : ''}  ${this.#current}`;
    return text.length >= width ? `${text.slice(0, Math.max(0, width - 2))}…` : text;
  }

  /** The terminal's width; a pseudo-terminal may report 0 columns. */
  #width(): number {
    const cols = this.stream.columns;
    return cols !== undefined && cols >= 20 ? cols : 80;
  }

  #draw(): void {
    this.stream.write(`\r\u001b[2K${this.line()}`);
    this.#drawn = true;
  }
}
