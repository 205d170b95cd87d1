import type { Cassette } from '../cassette/cassette.js';
import { cassetteToHar } from './har/export-har.js';

/** What an export format makes of a cassette: the text to write, and notes for stderr (what it
 * could not carry over). */
export interface ExportFormat {
  describe: string;
  render(cassette: Cassette): { text: string; notes: string[] };
}

/** `export --format <name>`: every format, by name. */
export const FORMATS: Readonly<Record<string, ExportFormat>> = {
  har: {
    describe: 'HAR 1.2 (HTTP Archive): one entry per HTTP exchange, SSE events in _eventSourceMessages; stdio as synthetic entries',
    render(cassette) {
      const { har, left } = cassetteToHar(cassette);
      const notes =
        left > 0
          ? [
              `export: ${left} stdio frame${left === 1 ? '' : 's'} left out (stderr lines, or frames that are no JSON-RPC request, notification or answer to one); see docs/har.md`,
            ]
          : [];
      return { text: `${JSON.stringify(har, null, 2)}\n`, notes };
    },
  },
};
