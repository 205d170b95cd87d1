import { CassetteError } from '../../lib/errors.js';
import type { ParsedOptions } from '../../lib/fast-args.js';
import { parseHostPort } from '../../lib/listen.js';
import { parseRedactPath } from '../../lib/payload-redact.js';
import { userPattern } from '../../lib/safe-pattern.js';
import type { Severity } from '../../lib/violation.js';
import { CAPTURE_LEVELS, type CaptureLevel } from './capture-level.js';
import { hashKeyFor } from './hash-key.js';
import type { CaptureSettings } from './frame-transform.js';
import type { SamplingSettings } from './sampling.js';
import { otlpProtocol } from '../otel/otlp-protocol.js';

export { CAPTURE_OPTIONS } from './capture-option-table.js';

export interface CaptureArgs {
  settings: CaptureSettings;
  sampling?: SamplingSettings;
  metricsListen?: { host: string; port: number };
  /** record --otel; `includePayloads`: tool arguments and results on the spans. */
  otel?: { includePayloads: boolean };
  /** `--ui`: where the live view listens. */
  uiListen?: { host: string; port: number };
}

const KEEP_LEVELS = ['error', 'warning', 'info', 'none'];

/** `keyDir`: the folder of the cassettes, where `--capture hashed` keeps its key (hash-key.ts). */
export function captureArgsFrom(parsed: ParsedOptions, keyDir?: string): CaptureArgs {
  const level = String(parsed.capture ?? 'full');
  if (!CAPTURE_LEVELS.includes(level as CaptureLevel))
    throw new CassetteError('MCPC_USAGE', `--capture must be one of ${CAPTURE_LEVELS.join(', ')} (got ${JSON.stringify(level)})`);
  const paths = ((parsed['redact-path'] as unknown[] | undefined) ?? []).map((p) => {
    const pointer = String(p);
    if (!pointer.startsWith('/'))
      throw new CassetteError(
        'MCPC_USAGE',
        `--redact-path ${JSON.stringify(pointer)} is not a JSON Pointer; start it with "/" and name the place from the message's top, for example /params/arguments/password or /result/content/*/text`,
      );
    return parseRedactPath(pointer);
  });
  const values = ((parsed['redact-value'] as unknown[] | undefined) ?? []).map((p) => userPattern('--redact-value', String(p), 'strings'));
  const args: CaptureArgs = {
    settings: { level: level as CaptureLevel, redaction: { paths, values, secrets: parsed['redact-secrets'] !== false } },
  };
  if (parsed.sample !== undefined) {
    const fraction = Number(parsed.sample);
    if (!Number.isFinite(fraction) || fraction < 0 || fraction > 1)
      throw new CassetteError(
        'MCPC_USAGE',
        `--sample must be a fraction from 0 to 1, for example 0.1 for one session in ten (got ${JSON.stringify(parsed.sample)})`,
      );
    const keep = String(parsed['keep-violations'] ?? 'error');
    if (!KEEP_LEVELS.includes(keep))
      throw new CassetteError('MCPC_USAGE', `--keep-violations must be one of ${KEEP_LEVELS.join(', ')} (got ${JSON.stringify(keep)})`);
    args.sampling = { fraction, keepViolations: keep as Severity | 'none' };
  }
  if (parsed.otel === true) {
    // A protocol we cannot speak is a usage error now, before the server starts.
    otlpProtocol('TRACES');
    otlpProtocol('METRICS');
    args.otel = { includePayloads: parsed['include-payloads'] === true };
  } else if (parsed['include-payloads'] === true)
    throw new CassetteError('MCPC_USAGE', '--include-payloads puts payloads on OpenTelemetry spans; add --otel to send them');
  if (parsed['metrics-listen'] !== undefined) args.metricsListen = parseHostPort(String(parsed['metrics-listen']), '--metrics-listen');
  if (parsed.ui !== undefined) args.uiListen = parseHostPort(String(parsed.ui), '--ui');
  // Last, once every option is known good: the key file may be created.
  if (level === 'hashed') args.settings.hashKey = hashKeyFor(keyDir ?? process.cwd());
  return args;
}
