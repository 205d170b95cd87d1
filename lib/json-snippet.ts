/**
 * A value's JSON, shortened, for messages and reports: one writer of the snippets that verdicts,
 * replay reports and probe results quote, so they all cut and mark the cut the same way.
 */

export interface SnippetOptions {
  /** Written for `undefined` (which has no JSON); default `(absent)`. */
  absent?: string;
  /** `within` (default): at most `max` characters, the `…` that marks a cut among them. `after`:
   * `max` characters and then the `…` (the probes' texts, which baselines keep, are cut so). */
  cut?: 'within' | 'after';
}

/** `JSON.stringify(value)` (`String(value)` for what has no JSON), cut to `max` characters. */
export function jsonSnippet(value: unknown, max: number, options: SnippetOptions = {}): string {
  if (value === undefined) return options.absent ?? '(absent)';
  const text = JSON.stringify(value) ?? String(value);
  if (text.length <= max) return text;
  return options.cut === 'after' ? `${text.slice(0, max)}…` : `${text.slice(0, max - 1)}…`;
}
