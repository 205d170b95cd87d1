/**
 * JUnit XML, written from plain test cases: the commands that report in JUnit (validate, probe,
 * check) say what each case is, and this writes it, counting the tests, failures and errors of
 * every suite and of the whole report from the cases themselves, so the counts always match the
 * elements.
 */
import { xmlText } from './report-escape.js';

/** A `<failure>` or `<error>`: its message attribute, its type, and its text. */
export interface JunitProblem {
  message: string;
  type?: string;
  text?: string;
}

export interface JunitCase {
  classname: string;
  name: string;
  /** How long the case took, in milliseconds (written in seconds). */
  durationMs?: number;
  /** It ran and found something wrong (a breaking change, a violation at the threshold). */
  failure?: JunitProblem;
  /** It could not run to the end. */
  error?: JunitProblem;
  /** What it found that does not fail it. */
  systemOut?: string;
}

export interface JunitSuite {
  name: string;
  cases: readonly JunitCase[];
}

/** ` key="value"` for each defined value, escaped. */
function attributes(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlText(String(v))}"`)
    .join('');
}

function problem(tag: 'failure' | 'error', p: JunitProblem): string {
  const open = `      <${tag}${attributes({ message: p.message, type: p.type })}`;
  return p.text === undefined ? `${open}/>` : `${open}>${xmlText(p.text)}</${tag}>`;
}

function testcase(c: JunitCase): string[] {
  const time = c.durationMs === undefined ? undefined : (c.durationMs / 1000).toFixed(3);
  const lines = [`    <testcase${attributes({ classname: c.classname, name: c.name, time })}>`];
  if (c.failure) lines.push(problem('failure', c.failure));
  if (c.error) lines.push(problem('error', c.error));
  if (c.systemOut) lines.push(`      <system-out>${xmlText(c.systemOut)}</system-out>`);
  lines.push('    </testcase>');
  return lines;
}

/** `tests`, `failures` and (when there are any) `errors` of these cases. */
function counts(cases: readonly JunitCase[]): Record<string, number | undefined> {
  const errors = cases.filter((c) => c.error).length;
  return { tests: cases.length, failures: cases.filter((c) => c.failure).length, errors: errors || undefined };
}

/** The whole report: `<testsuites name=…>` holding each suite and its cases. */
export function junitReport(name: string, suites: readonly JunitSuite[]): string {
  const all = suites.flatMap((s) => s.cases);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name, ...counts(all) })}>`,
    ...suites.flatMap((s) => [
      `  <testsuite${attributes({ name: s.name, ...counts(s.cases) })}>`,
      ...s.cases.flatMap(testcase),
      '  </testsuite>',
    ]),
    '</testsuites>',
    '',
  ].join('\n');
}
