/**
 * Replay benchmarks (issue 7, scenario 8): a cassette of `interactions` recorded `tools/call`s
 * (recorded here, through `mcp-cassette record`, from the bench server) is
 *   - replayed against the same fast server with `mcp-cassette replay` (wall time of the whole
 *     command, process start included), and
 *   - served by `mcp-cassette serve` (stdio, and Streamable HTTP with --listen) to a client that
 *     asks the recorded calls again one at a time (time from the first call to the last answer).
 * Rates are interactions per second; the variants alternate round by round.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agent, HttpSession } from './http-client.js';
import { LineClient } from './line-client.js';
import { benchServer, cli, ended, firstLine, node, proxyNodeFlags, start, stop } from './proc.js';
import { section, type Section } from './report.js';
import { fmt, int, summary } from './stats.js';

type ReplayVariant = 'replay (stdio server)' | 'serve (stdio)' | 'serve --listen (HTTP)';
const VARIANTS: ReplayVariant[] = ['replay (stdio server)', 'serve (stdio)', 'serve --listen (HTTP)'];

/** Records `interactions` sequential echo calls (after the handshake) into `cassette`. */
async function recordCassette(cassette: string, interactions: number): Promise<void> {
  const child = start([cli, 'record', '--log-level', 'silent', '--no-validate', '--cassette', cassette, '--', node, benchServer, 'stdio']);
  const client = new LineClient(child.stdout!, child.stdin!);
  await client.handshake();
  for (let i = 0; i < interactions; i++) await client.echo(i);
  child.stdin!.end();
  await ended(child);
  if (child.exitCode !== 0) throw new Error(`recording the replay cassette failed (exit ${child.exitCode})`);
}

async function replayOnce(cassette: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn(node, [...proxyNodeFlags(), cli, 'replay', cassette, '--quiet', '--no-progress', '--', node, benchServer, 'stdio'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  await ended(child);
  if (child.exitCode !== 0) throw new Error(`mcp-cassette replay exited ${child.exitCode}: ${stderr.slice(-2000)}`);
  return (performance.now() - t0) / 1000;
}

function check(head: string, n: number): void {
  if (!head.includes(`"text":"${n}"`)) throw new Error(`serve answered call ${n} with ${head}`);
}

/** A serve run stops after this many seconds and is rated on the calls it answered. */
const capMs = (): number => Number(process.env.BENCH_SERVE_MAX_SECONDS ?? 20) * 1000;

interface Run {
  calls: number;
  seconds: number;
}

async function serveStdioOnce(cassette: string, interactions: number): Promise<Run> {
  // serve prints its summary on stderr at the end: kept, and shown only if something fails.
  const child = start([...proxyNodeFlags(), cli, 'serve', cassette, '--log-level', 'warn'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new LineClient(child.stdout!, child.stdin!);
  try {
    await client.handshake();
    const t0 = performance.now();
    let i = 0;
    for (; i < interactions && performance.now() - t0 < capMs(); i++) check((await client.echo(i)).head, i);
    return { calls: i, seconds: (performance.now() - t0) / 1000 };
  } catch (err) {
    throw new Error(`${(err as Error).message}; serve said: ${stderr.slice(-1000)}`);
  } finally {
    child.stdin!.end();
    await stop(child, 'SIGTERM', 10_000).catch(() => undefined);
  }
}

async function serveHttpOnce(cassette: string, interactions: number): Promise<Run> {
  const child = start([...proxyNodeFlags(), cli, 'serve', cassette, '--listen', '127.0.0.1:0', '--log-level', 'warn'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const dispatcher = agent(1);
  try {
    const session = new HttpSession(await firstLine(child), dispatcher);
    await session.open();
    const t0 = performance.now();
    let i = 0;
    for (; i < interactions && performance.now() - t0 < capMs(); i++) {
      const a = await session.echo(i);
      if (a.status !== 200) throw new Error(`serve --listen answered call ${i} with HTTP ${a.status}`);
    }
    return { calls: i, seconds: (performance.now() - t0) / 1000 };
  } catch (err) {
    throw new Error(`${(err as Error).message}; serve said: ${stderr.slice(-1000)}`);
  } finally {
    await dispatcher.close();
    await stop(child, 'SIGINT', 10_000);
  }
}

export async function replayBench(interactions: number, rounds: number): Promise<Section> {
  const out = section();
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-bench-'));
  const rates = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<ReplayVariant, number[]>;
  const capped: Partial<Record<ReplayVariant, number>> = {};
  const serve = (v: ReplayVariant, r: Run): void => {
    rates[v].push(r.calls / r.seconds);
    if (r.calls < interactions) capped[v] = Math.min(capped[v] ?? Infinity, r.calls);
  };
  try {
    const cassette = join(dir, 'replay.cassette.json');
    const t0 = performance.now();
    await recordCassette(cassette, interactions);
    out.notes.push(
      `replay cassette: ${int(interactions)} recorded tools/call interactions (plus the handshake), recorded in ${fmt((performance.now() - t0) / 1000, 1)} s`,
    );
    const total = interactions + 1; // the recorded initialize is replayed too
    for (let r = 0; r < rounds; r++) {
      rates['replay (stdio server)'].push(total / (await replayOnce(cassette)));
      serve('serve (stdio)', await serveStdioOnce(cassette, interactions));
      serve('serve --listen (HTTP)', await serveHttpOnce(cassette, interactions));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const v of VARIANTS) {
    const s = summary(rates[v]);
    out.rows.push({
      scenario: `8. ${int(interactions)}-interaction cassette`,
      variant: v,
      median: `${int(s.median)} interactions/s`,
      tail: `${int(s.min)} interactions/s`,
      compared: v.startsWith('replay')
        ? `${fmt(interactions / s.median, 1)} s for the whole command (process start, server spawn, compare), ${rounds} round${rounds === 1 ? '' : 's'}`
        : `${int(1e6 / s.median)} µs per call, one in flight, ${rounds} round${rounds === 1 ? '' : 's'}${capped[v] !== undefined ? `; stopped by the ${fmt(capMs() / 1000, 0)} s cap after ${int(capped[v]!)} of ${int(interactions)} calls` : ''}`,
    });
  }
  return out;
}
