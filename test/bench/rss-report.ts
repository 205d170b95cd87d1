/**
 * Preloaded into a proxy process by the memory benchmarks (`node --import <this> ...`): when the
 * process exits, it writes its peak resident set (the kernel's maxrss for the whole process, all
 * threads, in MB) to the file named by BENCH_RSS_FILE. This covers what happens after the traffic
 * too (folding the journal into the cassette), which sampling /proc from outside can miss.
 */
import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BENCH_RSS_FILE;
if (isMainThread && file) {
  process.on('exit', () => {
    writeFileSync(file, String(process.resourceUsage().maxRSS / 1024));
  });
}
