import { CassetteError } from '../../lib/errors.js';

/** What `record --otel` speaks (the OTLP/HTTP encodings; gRPC is not bundled). */
const PROTOCOLS = ['http/protobuf', 'http/json'];

/** The OTLP protocol a signal uses: its own variable, the general one, else http/protobuf. */
export function otlpProtocol(signal: 'TRACES' | 'METRICS', env: NodeJS.ProcessEnv = process.env): 'http/protobuf' | 'http/json' {
  const name = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
  const raw = (env[name] || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim();
  if (!PROTOCOLS.includes(raw))
    throw new CassetteError(
      'MCPC_USAGE',
      `${env[name] ? name : 'OTEL_EXPORTER_OTLP_PROTOCOL'}=${raw} is not supported by record --otel; use http/protobuf (the default) or http/json`,
    );
  return raw as 'http/protobuf' | 'http/json';
}
