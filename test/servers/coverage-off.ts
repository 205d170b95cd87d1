/**
 * Imported first by every test server: in a coverage run (`npm run test:all`, NODE_V8_COVERAGE
 * set) a test server's own coverage is not wanted (test code is not measured), yet V8's precise
 * coverage slowed each of the 1,500 server processes of a run and wrote 1-2 MB of counts for each
 * at exit (2 GB of a run's 7 GB; about 80 ms of CPU per process, measured). So a process whose main
 * script is a test server stops it before the server's other imports are evaluated: what loads
 * after that runs uninstrumented, and nothing is written. A test that imports a server's module
 * in-process keeps its coverage (its main script is ava's worker).
 *
 * Node, having been told to write coverage at exit, prints a line on stderr when it finds the
 * collection stopped: the stderr of a test server is traffic (recorded, judged, fuzzed), so the
 * last exit listener closes it first. Registered after the server's own module has run, so that
 * listeners the server adds (a seeded crash's exit code) still run before it. Not on an uncaught
 * exception: Node prints its report after the exit listeners, and a crash's report is what the
 * crash tests read (there the line is left, after the report).
 */
import { closeSync } from 'node:fs';
import { sep } from 'node:path';
import { stopCoverage } from 'node:v8';

const main = process.argv[1] ?? '';
if (process.env.NODE_V8_COVERAGE && main.includes(`${sep}test${sep}servers${sep}`)) {
  stopCoverage();
  let crashed = false;
  process.on('uncaughtExceptionMonitor', () => {
    crashed = true;
  });
  setImmediate(() =>
    process.on('exit', () => {
      if (crashed) return;
      try {
        closeSync(2);
      } catch {
        // already closed
      }
    }),
  );
}
