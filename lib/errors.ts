/**
 * Our own failures, as opposed to protocol traffic (JSON-RPC errors are forwarded and recorded,
 * never thrown) and spec violations (data, see validators/). Callers match on `code`, never on
 * message text or `instanceof`, the way undici's `UND_ERR_*` codes are meant to be used.
 */
export type ErrorCode =
  | 'MCPC_USAGE'
  /** The command line does not parse (an unknown option, a missing value or argument): the
   * message is the whole line, naming the command and its usage. */
  | 'MCPC_ARGUMENTS'
  | 'MCPC_SPAWN_FAILED'
  | 'MCPC_CASSETTE_NOT_FOUND'
  | 'MCPC_CASSETTE_INVALID'
  | 'MCPC_CASSETTE_TOO_NEW'
  | 'MCPC_CASSETTE_LOCKED'
  | 'MCPC_JOURNAL_INVALID'
  | 'MCPC_CONFIG_INVALID'
  | 'MCPC_CONFIG_NOT_FOUND'
  | 'MCPC_LISTEN_FAILED'
  | 'MCPC_FILE_UNREADABLE'
  | 'MCPC_FILE_UNWRITABLE'
  /** `check`: the base build (or the client script run against it) gave no cassette to replay. */
  | 'MCPC_BASE_BUILD_FAILED'
  /** `merge-reports`: the parts given are not every part of one sharded check, each once. */
  | 'MCPC_SHARDS_MISMATCH'
  /** `import --from har`: the file is not JSON or not HAR / holds no MCP exchange / holds an MCP
   * body cut short or left out. */
  | 'MCPC_HAR_INVALID'
  | 'MCPC_HAR_NO_MCP'
  | 'MCPC_HAR_TRUNCATED';

/** `record`'s status when the session could not be written to the cassette (it stays in its
 * journal): sysexits' EX_CANTCREAT, clear of the codes we give otherwise (1, 2, 70, 126, 127). */
export const SESSION_NOT_SAVED_EXIT = 73;

/** Why a file operation failed, in words a user can act on. */
export function ioReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a part of the path is a file, not a folder';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EROFS':
      return 'read-only file system';
    default:
      return e?.message ?? String(err);
  }
}

export class CassetteError extends Error {
  override readonly name = 'CassetteError';
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export function isCassetteError(err: unknown): err is CassetteError {
  const code = (err as { code?: unknown } | undefined)?.code;
  return err instanceof Error && typeof code === 'string' && code.startsWith('MCPC_');
}
