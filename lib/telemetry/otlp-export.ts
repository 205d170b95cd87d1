import type { ExportFormat } from '../export/formats.js';
import type { PayloadRedaction } from '../payload-redact.js';
import { resourceAttributes, sessionSpans, tracesData } from './otlp-json.js';

/** Payloads on spans are masked again on the way out: the credential shapes, whatever the
 * cassette was recorded with. */
export const EXPORT_REDACTION: PayloadRedaction = { paths: [], values: [], secrets: true };

/** `--format otlp-json`: one TracesData line per session of every cassette, in order. */
export const OTLP_JSON_FORMAT: ExportFormat = {
  describe: 'OTLP File Exporter traces (one TracesData JSON object a line), read by the Collector otlpjsonfile receiver',
  run(input, write) {
    const resource = resourceAttributes();
    for (const { cassette } of input.cassettes)
      for (const session of cassette.sessions) {
        const spans = sessionSpans(session, input.includePayloads ? EXPORT_REDACTION : undefined);
        if (spans.length > 0) write(`${JSON.stringify(tracesData(session, spans, resource))}\n`);
      }
  },
};
