#!/usr/bin/env node
/** `npm run bench`: prints one table. Numbers are medians and p99 over alternating runs. */
import { cpus } from 'node:os';
import { coldStart, roundTrips, VARIANTS } from './stdio-bench.js';
import { httpRoundTrips, HTTP_VARIANTS } from './http-bench.js';
import { validatorThroughput } from './validator-bench.js';
import { RULES } from '../../validators/rules/index.js';

const RULES_COUNT = RULES.length;
import { fmt, summary } from './stats.js';

const rows: string[][] = [];
const cold = await coldStart(Number(process.env.BENCH_COLD_ROUNDS ?? 40));
const coldDirect = summary(cold.direct).median;
const coldFloor = summary(cold['pipe floor']).median;
for (const v of VARIANTS) {
  const s = summary(cold[v]);
  rows.push(['stdio cold start (spawn → first answer)', v, `${fmt(s.median)} ms`, `${fmt(s.p99)} ms`,
    v === 'direct' ? '' : `+${fmt(s.median - coldDirect)} ms vs direct${v.includes('record') ? `, +${fmt(s.median - coldFloor)} ms vs floor` : ''}`]);
}
const rt = await roundTrips(Number(process.env.BENCH_RT_COUNT ?? 6000), 20);
const rtDirect = summary(rt.direct).median;
const floorAdded = summary(rt['pipe floor']).median - rtDirect;
for (const v of VARIANTS) {
  const s = summary(rt[v]);
  const added = s.median - rtDirect;
  rows.push(['stdio round trip (1 in flight)', v, `${fmt(s.median)} µs`, `${fmt(s.p99)} µs`,
    v === 'direct' ? '' : `+${fmt(added)} µs added${v.includes('record') ? ` = ${fmt(added / floorAdded, 2)}x the floor's` : ''}`]);
}

for (const format of ['json', 'sse'] as const) {
  const http = await httpRoundTrips(format, Number(process.env.BENCH_HTTP_COUNT ?? 3000), 20);
  const direct = summary(http.direct).median;
  const floorAdded = summary(http['http floor']).median - direct;
  for (const v of HTTP_VARIANTS) {
    const s = summary(http[v]);
    const added = s.median - direct;
    rows.push([`HTTP round trip, ${format.toUpperCase()} answer (1 in flight)`, v, `${fmt(s.median)} µs`, `${fmt(s.p99)} µs`,
      v === 'direct' ? '' : `+${fmt(added)} µs added${v.includes('record') ? ` = ${fmt(added / floorAdded, 2)}x the floor's` : ''}`]);
  }
}

const v = validatorThroughput(Number(process.env.BENCH_VALIDATOR_ROUNDS ?? 400));
rows.push([`validator throughput (${RULES_COUNT} rules, recorded traffic)`, 'one core', `${fmt(v.perSecond, 0)} msg/s`, '', `${v.messages} messages in ${fmt(v.seconds, 2)} s`]);

const header = ['scenario', 'variant', 'median', 'p99', 'compared'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
process.stdout.write(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}\n`);
process.stdout.write([line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n') + '\n');
