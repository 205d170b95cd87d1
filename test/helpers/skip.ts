import test, { type TestFn } from 'ava';

/**
 * `test` when what a test needs is here, else `test.skip` after one printed line saying what is
 * missing and how to enable it: a skipped check is reported as skipped, with its reason, never
 * as a pass.
 */
export function testWhen(present: boolean, what: string, hint: string): TestFn {
  if (!present) console.log(`# ${what} skipped: ${hint}`);
  return present ? test : (test.skip as unknown as TestFn);
}
