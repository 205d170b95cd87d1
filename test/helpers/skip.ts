import test, { type TestFn } from 'ava';

/**
 * `test` when what a test needs is here, else a skipping `test` after one printed line saying
 * what is missing and how to enable it: a skipped check is reported as skipped, with its reason,
 * never as a pass. The skipping form keeps `.serial` (ava has `test.serial.skip`, no
 * `test.skip.serial`), so a file declares its tests the same way either way.
 */
export function testWhen(present: boolean, what: string, hint: string): TestFn {
  if (present) return test;
  console.log(`# ${what} skipped: ${hint}`);
  return Object.assign((...args: Parameters<typeof test.skip>) => test.skip(...args), { serial: test.serial.skip }) as unknown as TestFn;
}
