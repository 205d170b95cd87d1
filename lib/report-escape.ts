/**
 * Escaping for the report formats validate, probe and replay share: JUnit XML text and attribute
 * values, and GitHub workflow-command annotations (`::error file=…::message`).
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
