/**
 * Our own failures, as opposed to protocol traffic (JSON-RPC errors are forwarded and recorded,
 * never thrown) and spec violations (data, see validators/). Callers match on `code`, never on
 * message text or `instanceof`, the way undici's `UND_ERR_*` codes are meant to be used.
 */
export type ErrorCode =
  | 'MCPC_USAGE'
  | 'MCPC_SPAWN_FAILED'
  | 'MCPC_CASSETTE_NOT_FOUND'
  | 'MCPC_CASSETTE_INVALID'
  | 'MCPC_CASSETTE_TOO_NEW'
  | 'MCPC_CASSETTE_LOCKED'
  | 'MCPC_JOURNAL_INVALID'
  | 'MCPC_CONFIG_INVALID'
  | 'MCPC_CONFIG_NOT_FOUND';

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
