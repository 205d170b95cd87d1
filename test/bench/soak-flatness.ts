#!/usr/bin/env node
/**
 * The soak's RSS verdict (rssFlatness) read again from the samples a soak wrote
 * (BENCH_SOAK_CSV), without running it again:
 *
 *   node dist/test/bench/soak-flatness.js <soak-<KiB>k.csv> <requests per second>
 */
import { readFileSync } from 'node:fs';
import { rssFlatness } from './soak-bench.js';

const [file, rate] = process.argv.slice(2);
if (!file || !rate) {
  process.stderr.write('usage: soak-flatness.js <soak csv> <requests per second>\n');
  process.exit(2);
}
const samples = readFileSync(file, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.split(','))
  .map(([seconds, rss]) => ({ seconds: Number(seconds), rssMb: rss === '-' ? NaN : Number(rss) }));
const f = rssFlatness(samples, Number(rate));
process.stdout.write(
  `warm-up ends at ${(f.warmEnd / 60).toFixed(1)} min; RSS median ${f.first.toFixed(1)} MB in the first window, ${f.last.toFixed(1)} MB in the last (${((f.last / f.first - 1) * 100).toFixed(1)}%); slope ${f.slopePerHour.toFixed(1)} MB/h; flat: ${f.last <= f.first * 1.1 ? 'yes' : 'no'}\n`,
);
