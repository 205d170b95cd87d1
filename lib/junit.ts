/**
 * JUnit XML, written from plain test cases: every command that reports in JUnit (validate, probe,
 * fuzz, check, replay) says what each case is, and this writes it. By default the tests, failures
 * and errors of every suite and of the whole report are counted from the cases themselves, so the
 * counts always match the elements; a report whose counts mean something else (replay counts a
 * session with nothing replayed as one test, skipped) gives them.
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
  /** It did not run: `<skipped message=…/>`. */
  skipped?: { message: string };
  /** What it found that does not fail it. */
  systemOut?: string;
  /** Written on one line, its elements inside the `<testcase>` line (replay's reports always
   * wrote a case that stands for a whole session so). */
  oneLine?: boolean;
}

/** Counts written as attributes in place of those counted from the cases, in this order after
 * the name. */
export interface JunitCounts {
  tests: number;
  failures: number;
  errors: number;
  skipped?: number;
}

export interface JunitSuite {
  name: string;
  cases: readonly JunitCase[];
  /** `<system-err>` after the cases: why the suite stopped. */
  systemErr?: string;
  counts?: JunitCounts;
}

/** ` key="value"` for each defined value, escaped. */
function attributes(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlText(String(v))}"`)
    .join('');
}

function problem(tag: 'failure' | 'error', p: JunitProblem): string {
  const open = `<${tag}${attributes({ message: p.message, type: p.type })}`;
  return p.text === undefined ? `${open}/>` : `${open}>${xmlText(p.text)}</${tag}>`;
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function testcase(c: JunitCase): string[] {
  const time = c.durationMs === undefined ? undefined : seconds(c.durationMs);
  const open = `    <testcase${attributes({ classname: c.classname, name: c.name, time })}>`;
  const inner: string[] = [];
  if (c.failure) inner.push(problem('failure', c.failure));
  if (c.error) inner.push(problem('error', c.error));
  if (c.skipped) inner.push(`<skipped${attributes({ message: c.skipped.message })}/>`);
  if (c.systemOut) inner.push(`<system-out>${xmlText(c.systemOut)}</system-out>`);
  if (c.oneLine) return [`${open}${inner.join('')}</testcase>`];
  return [open, ...inner.map((e) => `      ${e}`), '    </testcase>'];
}

/** `tests`, `failures` and (when there are any) `errors` of these cases. */
function counts(cases: readonly JunitCase[]): Record<string, number | undefined> {
  const errors = cases.filter((c) => c.error).length;
  return { tests: cases.length, failures: cases.filter((c) => c.failure).length, errors: errors || undefined };
}

function testsuite(s: JunitSuite): string[] {
  return [
    `  <testsuite${attributes({ name: s.name, ...(s.counts ?? counts(s.cases)) })}>`,
    ...s.cases.flatMap(testcase),
    ...(s.systemErr === undefined ? [] : [`    <system-err>${xmlText(s.systemErr)}</system-err>`]),
    '  </testsuite>',
  ];
}

/** The whole report: `<testsuites name=…>` holding each suite and its cases; `options` gives the
 * report's own counts and how long it took, when the cases do not say. */
export function junitReport(
  name: string,
  suites: readonly JunitSuite[],
  options: { counts?: JunitCounts; durationMs?: number } = {},
): string {
  const all = suites.flatMap((s) => s.cases);
  const time = options.durationMs === undefined ? undefined : seconds(options.durationMs);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name, ...(options.counts ?? counts(all)), time })}>`,
    ...suites.flatMap(testsuite),
    '</testsuites>',
    '',
  ].join('\n');
}
