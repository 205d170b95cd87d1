import type { Cassette } from '../../cassette/cassette.js';
import { packageVersion } from '../../version.js';
import type { ExportFormat } from '../formats.js';
import { httpEntries } from './export-http.js';
import { stdioEntries } from './export-stdio.js';
import type { HarEntry, HarLog } from './har-types.js';

export interface HarExport {
  har: HarLog;
  /** stdio frames that have no place in HAR (stderr lines, frames that are no request,
   * notification or answer). */
  left: number;
}

/**
 * A cassette as HAR 1.2: one page per session (its id, its label and peers as the title), one
 * entry per HTTP exchange (export-http.ts) or per stdio request and its answer (export-stdio.ts),
 * every entry in the order it started. The cassette's values go out as they are stored: what the
 * recorder masked (secret headers, credentials in payloads) stays masked.
 */
export function cassetteToHar(cassette: Cassette): HarExport {
  const pages: HarLog['log']['pages'] = [];
  const entries: HarEntry[] = [];
  let left = 0;
  for (const s of cassette.sessions) {
    const server = s.serverInfo?.name ? ` → ${s.serverInfo.name}${s.serverInfo.version ? ` ${s.serverInfo.version}` : ''}` : '';
    pages.push({
      startedDateTime: s.startedAt,
      id: s.id,
      title: `${s.label ?? `${s.transport} session`}${server}`,
      pageTimings: { onContentLoad: -1, onLoad: -1 },
    });
    if (s.transport === 'streamable-http') entries.push(...httpEntries(s, s.id));
    else {
      const stdio = stdioEntries(s, s.id);
      entries.push(...stdio.entries);
      left += stdio.left;
    }
  }
  entries.sort((a, b) => a.startedDateTime.localeCompare(b.startedDateTime));
  return { har: { log: { version: '1.2', creator: { name: 'mcp-cassette', version: packageVersion() }, pages, entries } }, left };
}

/** `export --format har`: every cassette named, as one HAR whose pages are their sessions in the
 * order they started. */
export const HAR_FORMAT: ExportFormat = {
  describe: 'HAR 1.2 (HTTP Archive): one entry per HTTP exchange, SSE events in _eventSourceMessages; stdio as synthetic entries',
  run(input, write) {
    const all = input.cassettes.map((c) => c.cassette);
    const sessions = all.flatMap((c) => c.sessions).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    const { har, left } = cassetteToHar({ ...all[0]!, sessions });
    if (left > 0)
      input.note(
        `export: ${left} stdio frame${left === 1 ? '' : 's'} left out (stderr lines, or frames that are no JSON-RPC request, notification or answer to one); see docs/har.md`,
      );
    write(`${JSON.stringify(har, null, 2)}\n`);
  },
};
