import type { Cassette } from '../cassette/cassette.js';

/** What an export format gets: the cassettes named on the command line, read, and the options. */
export interface ExportInput {
  cassettes: { path: string; cassette: Cassette }[];
  includePayloads: boolean;
  /** Notes for stderr: what the format could not carry over. */
  note(text: string): void;
}

/** One export format: writes its output through `write` (a file or stdout). */
export interface ExportFormat {
  describe: string;
  run(input: ExportInput, write: (text: string) => void): Promise<void> | void;
}

/** Every format of `export --format`, by name, each loaded only when asked for. A new format is
 * its module and a line here. */
export const FORMATS: Readonly<Record<string, () => Promise<ExportFormat>>> = {
  har: async () => (await import('./har/export-har.js')).HAR_FORMAT,
  'otlp-json': async () => (await import('../telemetry/otlp-export.js')).OTLP_JSON_FORMAT,
};
