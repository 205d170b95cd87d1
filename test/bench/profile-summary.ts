#!/usr/bin/env node
/**
 * Summarises V8 CPU profiles (`node --cpu-prof`, e.g. written by `BENCH_CPU_PROF=<dir> npm run
 * bench`): self time per function, and total (inclusive) time per function, top N of each.
 *   node dist/test/bench/profile-summary.js <file.cpuprofile|dir> [top=25]
 * A folder is summarised file by file (the proxy's main thread and its worker thread are
 * separate profiles).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

function where(n: ProfileNode): string {
  const url = n.callFrame.url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '~/')
    .replace(/^.*\/dist\//, '');
  return `${n.callFrame.functionName || '(anonymous)'} ${url ? `${url}:${n.callFrame.lineNumber + 1}` : ''}`.trim();
}

export function summarise(path: string, top = 25): string {
  const p = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Time per sample from timeDeltas (µs); fall back to hit counts.
  const selfUs = new Map<number, number>();
  if (p.samples && p.timeDeltas) {
    for (let i = 0; i < p.samples.length; i++) selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i + 1] ?? 0));
  } else {
    const per =
      (p.endTime - p.startTime) /
      Math.max(
        1,
        p.nodes.reduce((a, n) => a + (n.hitCount ?? 0), 0),
      );
    for (const n of p.nodes) selfUs.set(n.id, (n.hitCount ?? 0) * per);
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    self.set(where(n), (self.get(where(n)) ?? 0) + us);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const w = where(byId.get(cur)!);
      if (seen.has(w)) continue;
      seen.add(w);
      incl.set(w, (incl.get(w) ?? 0) + us);
    }
  }
  const idle = self.get('(idle)') ?? 0;
  const busy = total - idle;
  const fmtRow = ([name, us]: [string, number]): string =>
    `  ${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${name}`;
  const skip = new Set(['(idle)', '(root)', '(program)']);
  const lines = [
    `${basename(path)}: ${(total / 1000).toFixed(0)} ms profiled, ${(busy / 1000).toFixed(0)} ms busy (percentages of busy time)`,
    ' self time:',
    ...[...self]
      .filter(([n]) => !skip.has(n))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(fmtRow),
    ` (program) ${(((self.get('(program)') ?? 0) * 100) / busy).toFixed(1)}%, (garbage collector) ${(((self.get('(garbage collector)') ?? 0) * 100) / busy).toFixed(1)}%`,
    ' total time:',
    ...[...incl]
      .filter(([n]) => !skip.has(n))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(fmtRow),
  ];
  return lines.join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.js')) {
  const [target, topArg] = process.argv.slice(2);
  if (!target) {
    process.stderr.write('usage: node dist/test/bench/profile-summary.js <file.cpuprofile|dir> [top]\n');
    process.exit(2);
  }
  const files = statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(target, f))
    : [target];
  for (const f of files) process.stdout.write(summarise(f, Number(topArg ?? 25)) + '\n\n');
}
