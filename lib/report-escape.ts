/**
 * Escaping for the report formats validate, probe, replay and check share: JUnit XML text and
 * attribute values, GitHub workflow-command annotations (`::error file=…::message`) and Markdown
 * table cells.
 */

/** Text or an attribute value in XML: the five specials made entities, and the control
 * characters XML 1.0 forbids dropped (a peer's message may carry them). */
export function xmlText(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}

/** An annotation's message: percent, CR and LF escaped, as the runner reads them back. */
export function annotationData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** An annotation's property value (`file=`, `title=`): also `:` and `,`, which end a property. */
export function annotationProperty(s: string): string {
  return annotationData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** Text in a Markdown table cell: pipes escaped, line breaks as spaces. */
export function md(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r\n?|\n/g, ' ');
}

/** A value as a code span inside a table cell: pipes escaped (GFM unescapes them inside code
 * spans too), line breaks as spaces, and a fence one backtick longer than the longest run inside,
 * padded when the value starts or ends with a backtick or a space. */
export function mdCode(s: string): string {
  const text = md(s);
  const fence = '`'.repeat(Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length)) + 1);
  const pad = /^[` ]|[` ]$/.test(text) ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}
