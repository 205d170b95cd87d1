#!/usr/bin/env node
/**
 * Issue 17's long-session check: a 200,000-message stdio session (100,000 `tools/call` to the
 * bench server, and every 1,000 calls an answer to a request nobody sent, so there are verdicts to
 * compare),
 * recorded with live validation as it runs by default, and again with a backlog bound so small
 * (MCPC_LIVE_MAX_BACKLOG=4096) that the live validator sheds and the cassette write judges every
 * message. Prints, for both, how the verdicts were reached and whether the stored verdicts equal
 * what `validate` finds offline on the same cassette (seq for seq), and each other (without seqs:
 * the server's answers may interleave differently in two recordings). Exit 1 when they differ.
 *
 *   node dist/test/bench/verdicts-200k.js [calls=100000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Violation } from '../../lib/violation.js';
import { validateSessions } from '../../validators/validate-sessions.js';
import { RULES } from '../../validators/rules/index.js';
import { readCassette } from '../helpers/recording.js';
import { LineClient, pump } from './line-client.js';
import { benchServer, cli, ended, node, start } from './proc.js';

const calls = Number(process.argv[2] ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'mcpc-200k-'));

async function record(
  name: string,
  env: Record<string, string>,
): Promise<{ verdicts: string[]; offline: string[]; messages: number; log: string }> {
  const cassette = join(dir, `${name}.cassette.json`);
  const proc = start([cli, 'record', '--log-level', 'warn', '--cassette', cassette, '--', node, benchServer, 'stdio'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let log = '';
  proc.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const client = new LineClient(proc.stdout!, proc.stdin!);
  await client.handshake();
  // Every 1,000th call is followed by an answer to a request nobody sent.
  // One call in flight: the same messages in the same order in both runs, so seqs compare.
  await pump(calls, 1, (i) =>
    i % 1000 === 999
      ? client.echo(i).then(() => void proc.stdin!.write(`{"jsonrpc":"2.0","id":"nobody-asked-${i}","result":{}}\n`))
      : client.echo(i),
  );
  proc.stdin!.end();
  await ended(proc);
  const c = readCassette(cassette);
  const s = c.sessions[0]!;
  const key = (v: Violation): string => `${v.seq} ${v.rule} ${v.severity} ${v.path} ${v.message}`;
  return {
    verdicts: (s.violations ?? []).map(key).sort(),
    offline: validateSessions(c.sessions, { rules: RULES }).map(key).sort(),
    messages: s.messages.length,
    log,
  };
}

try {
  const t0 = Date.now();
  const live = await record('live', {});
  const shed = await record('shed', { MCPC_LIVE_MAX_BACKLOG: '4096' });
  const how = (r: { log: string }): string =>
    /live validation shed (\d+) of (\d+) messages/.exec(r.log)?.[0] ?? 'judged live, nothing shed';
  const same = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
  // Across the two recordings the server's answers may interleave with the client's next line in
  // another order, which moves seqs: compare the verdicts without them there.
  const bare = (v: string[]): string[] => v.map((x) => x.slice(x.indexOf(' ') + 1)).sort();
  const lines = [
    `messages: ${live.messages} (default run), ${shed.messages} (shedding run); ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    `default run: ${how(live)}; ${live.verdicts.length} stored verdicts; equal to offline validate: ${same(live.verdicts, live.offline)}`,
    `shedding run (MCPC_LIVE_MAX_BACKLOG=4096): ${how(shed)}; ${shed.verdicts.length} stored verdicts; equal to offline validate: ${same(shed.verdicts, shed.offline)}`,
    `stored verdicts identical between the runs (rule, place, message): ${same(bare(live.verdicts), bare(shed.verdicts))}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  if (process.env.VERDICTS_DEBUG) process.stdout.write(`${JSON.stringify({ live: live.verdicts, shed: shed.verdicts }, null, 1)}\n`);
  if (
    !same(bare(live.verdicts), bare(shed.verdicts)) ||
    !same(shed.verdicts, shed.offline) ||
    !same(live.verdicts, live.offline) ||
    live.verdicts.length === 0
  )
    process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
