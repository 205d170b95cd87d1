/**
 * How every command writes what it prints: report files (`-` is stdout), colour (one decision
 * for all of them), and a stdout that the reader closed (`| head`).
 */
import { accessSync, constants, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CassetteError, ioReason } from './errors.js';

/** Whether `file` names stdout: absent, or `-` as in most Unix tools. */
export function isStdout(file: string | undefined): boolean {
  return file === undefined || file === '-';
}

/** Writes a report to `file` (its folder created, as replay and serve always did) or, for `-`
 * or no file, to stdout. A file that cannot be written is a CassetteError naming it. */
export function writeReportText(file: string | undefined, text: string, stdout: { write(text: string): unknown } = process.stdout): void {
  if (isStdout(file)) {
    stdout.write(text);
    return;
  }
  const path = resolve(file!);
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  } catch (err) {
    throw new CassetteError(
      'MCPC_FILE_UNWRITABLE',
      `cannot write ${path} (${ioReason(err)}); choose a path you can write, or - for stdout`,
      { cause: err },
    );
  }
}

/**
 * Checks, before a command does its work, that each report file it was given can be written (the
 * file, or the nearest folder of its path that exists: the rest is created), so that a replay or a
 * check that runs for minutes does not end on "cannot write". Nothing is created. `[option, file]`
 * pairs; `-` and undefined are stdout.
 */
export function checkReportPaths(reports: readonly (readonly [string, string | undefined])[]): void {
  for (const [option, file] of reports) {
    if (isStdout(file)) continue;
    const path = resolve(file!);
    const err = whyUnwritable(path);
    if (err) {
      throw new CassetteError(
        'MCPC_FILE_UNWRITABLE',
        `cannot write ${path} (${ioReason(err)}), given to ${option}; choose a path you can write, or - for stdout; nothing was run`,
        { cause: err },
      );
    }
  }
}

function whyUnwritable(path: string): NodeJS.ErrnoException | undefined {
  const fail = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });
  let at = path;
  for (;;) {
    try {
      const st = statSync(at);
      if (at === path && st.isDirectory()) return fail('EISDIR');
      if (at !== path && !st.isDirectory()) return fail('ENOTDIR');
      accessSync(at, at === path ? constants.W_OK : constants.W_OK | constants.X_OK);
      return undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return err as NodeJS.ErrnoException;
    }
    if (dirname(at) === at) return undefined;
    at = dirname(at);
  }
}

/**
 * Whether to colour text for `stream`: FORCE_COLOR (any value but 0 or false) forces it, NO_COLOR
 * (any non-empty value, no-color.org) turns it off, TERM=dumb too; otherwise on a terminal only.
 */
export function useColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

/**
 * A reader that closes our stdout early (`rules | head -1`) is not an error: what is left of the
 * output is dropped and the command ends with its own status. Without this, Node reports EPIPE as
 * an unhandled 'error' event with a stack trace. When stdout is a socket (a parent that spawned us
 * with a pipe: Node makes that a socket pair) the same close arrives as ECONNRESET.
 */
export function quietOnClosedStdout(stdout: NodeJS.WriteStream = process.stdout): void {
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ECONNRESET' || err.code === 'ERR_STREAM_DESTROYED') return;
    throw err;
  });
}
