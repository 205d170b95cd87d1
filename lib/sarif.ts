/**
 * What every SARIF 2.1.0 log of mcp-cassette (validate, probe, check) says about the tool and its
 * rules: the driver's name and version, and where each rule is explained.
 *
 * The project has no public web page; its docs ship in the package, so the links are file: URIs
 * into the installed package, which a local SARIF viewer opens: `informationUri` is the docs
 * folder (what `--help`'s "Docs:" line names) and a rule's `helpUri` its row of docs/rules.md.
 * A file: link does not open on github.com, where code scanning shows a rule's `help` beside each
 * alert, so `help` carries what a reader there can follow: the rule's title, the section of the
 * specification it comes from (a public link) and the page of our docs that lists it.
 */
import { sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { docsPage } from './cli-help.js';
import { packageVersion } from './version.js';

/** A rule's anchor in docs/rules.md (`rules --format markdown` writes one per row). */
export const ruleAnchor = (id: string): string => id.toLowerCase();

/** `runs[].tool.driver` without its rules. */
export function sarifDriver(): { name: string; version: string; semanticVersion: string; informationUri: string } {
  const version = packageVersion();
  return { name: 'mcp-cassette', version, semanticVersion: version, informationUri: pathToFileURL(`${docsPage('')}${sep}`).href };
}

/** Where a rule is explained: a page of docs/ (shipped in the package) and, on it, an anchor. */
export interface RuleDoc {
  page: string;
  anchor?: string;
}

/** The documentation fields of a reportingDescriptor: `helpUri` into the installed package's
 * docs, `help` as text and Markdown (the spec link, when the rule has one, is its source). A
 * title is Markdown already, as docs/rules.md shows it (`code` spans). */
export function ruleHelp(title: string, doc: RuleDoc, spec?: string): { helpUri: string; help: { text: string; markdown: string } } {
  const where = `docs/${doc.page}${doc.anchor ? `#${doc.anchor}` : ''}`;
  return {
    helpUri: pathToFileURL(docsPage(doc.page)).href + (doc.anchor ? `#${doc.anchor}` : ''),
    help: {
      text: [title, ...(spec ? [`Specification: ${spec}`] : []), `Docs: ${where} in the mcp-cassette package`].join('\n'),
      markdown: [title, ...(spec ? [`Specification: <${spec}>`] : []), `Docs: \`${where}\` in the mcp-cassette package`].join('\n\n'),
    },
  };
}
