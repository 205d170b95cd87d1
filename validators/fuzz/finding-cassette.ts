/**
 * A finding as a cassette: the one session of the run that reproduced it, frames as the server
 * sent them, and the finding that `replay` checks (lib/fuzz-finding.ts). Its name comes from the
 * finding's signature, so a rerun with the same seed writes the same file, and a finding found
 * again overwrites its own cassette rather than adding one.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Cassette, CassetteFinding, RecordedSession } from '../../lib/cassette/cassette.js';
import { CASSETTE_FORMAT, CASSETTE_MINOR_VERSION, CASSETTE_VERSION } from '../../lib/cassette/cassette.js';
import { writeCassetteFile } from '../../lib/cassette/write.js';
import { packageVersion } from '../../lib/version.js';
import type { Endpoint } from './target.js';
import type { Observed } from './judge.js';
import type { FuzzCase } from './types.js';
import type { Wire } from './wire.js';

/** `crash-tools-call-lookup-1a2b3c4d.cassette.json`: the kind, the rule or method and tool, and a
 * hash of the whole signature. */
export function findingFileName(o: Observed): string {
  const slug = [o.kind, o.rule, o.method, o.tool]
    .filter((x): x is string => !!x)
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
  const hash = createHash('sha256').update(o.signature).digest('hex').slice(0, 8);
  return `${slug}-${hash}.cassette.json`;
}

export function findingSession(wire: Wire, endpoint: Endpoint, startedAt: Date): RecordedSession {
  const durationMs = wire.now();
  const target =
    endpoint.transport === 'stdio'
      ? { command: [...endpoint.command], cwd: endpoint.cwd ?? process.cwd() }
      : { url: endpoint.url, listen: endpoint.url };
  const era = wire.revision === '2026-07-28' ? 'modern' : 'legacy';
  return {
    id: 'fuzz-finding',
    transport: wire.transport,
    startedAt: startedAt.toISOString(),
    endedAt: new Date(startedAt.getTime() + durationMs).toISOString(),
    durationMs,
    target,
    ...(wire.mcpSessionId ? { mcpSessionId: wire.mcpSessionId } : {}),
    protocol: { era, ...(wire.revision ? { revision: wire.revision } : {}), negotiation: era === 'modern' ? 'envelope' : 'initialize' },
    proxy: { pid: process.pid, version: packageVersion() },
    ...(wire.transport === 'stdio' && wire.exit
      ? { end: { reason: 'exit' as const, exitCode: wire.exit.code, signal: wire.exit.signal } }
      : {}),
    ...(wire.transport === 'streamable-http' ? { exchanges: wire.exchanges } : {}),
    messages: wire.messages,
  };
}

export interface FindingMeta {
  seed: number;
  timeoutMs: number;
}

/** Writes the finding's cassette into `dir` and returns its path. `last` is the finding's case;
 * `observed` comes from the run that `session` holds, so its seq points into it. */
export function writeFindingCassette(dir: string, observed: Observed, last: FuzzCase, session: RecordedSession, meta: FindingMeta): string {
  const finding: CassetteFinding = {
    kind: observed.kind,
    ...(observed.rule ? { rule: observed.rule } : {}),
    signature: observed.signature,
    message: observed.message,
    seq: observed.seq,
    method: observed.method,
    ...(observed.tool ? { tool: observed.tool } : {}),
    ...(last.invalidArguments ? { invalidArguments: true as const } : {}),
    ...(observed.kind === 'hang' ? { timeoutMs: meta.timeoutMs } : {}),
    fuzz: { seed: meta.seed, case: last.id, mutation: last.mutation, change: last.change, version: packageVersion() },
  };
  const cassette: Cassette = {
    format: CASSETTE_FORMAT,
    version: CASSETTE_VERSION,
    minorVersion: CASSETTE_MINOR_VERSION,
    finding,
    sessions: [session],
  };
  mkdirSync(dir, { recursive: true });
  const path = join(dir, findingFileName(observed));
  writeCassetteFile(path, cassette);
  return path;
}
