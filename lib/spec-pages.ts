/**
 * The pages of each earlier revision's specification (docs/specification/<revision>/ of
 * github.com/modelcontextprotocol/modelcontextprotocol), as link paths: `.mdx` and a trailing
 * `/index` dropped, the way modelcontextprotocol.io serves them. A finding on traffic of one of
 * these revisions links to that revision's page when it has one of the same path; the
 * rule catalogue cites 2026-07-28 pages, which stay the link otherwise. The changelog is left
 * out: a rule citing it means what 2026-07-28 changed, which no earlier changelog says.
 */
const ALL = [
  '',
  'architecture',
  'basic',
  'basic/lifecycle',
  'basic/transports',
  'basic/utilities/cancellation',
  'basic/utilities/ping',
  'basic/utilities/progress',
  'client/roots',
  'client/sampling',
  'server',
  'server/prompts',
  'server/resources',
  'server/tools',
  'server/utilities/completion',
  'server/utilities/logging',
  'server/utilities/pagination',
];
const MARCH = [...ALL, 'basic/authorization'];
const JUNE = [...MARCH, 'client/elicitation', 'schema'];

export const SPEC_PAGES: Readonly<Record<string, ReadonlySet<string>>> = {
  '2024-11-05': new Set([...ALL, 'basic/messages']),
  '2025-03-26': new Set(MARCH),
  '2025-06-18': new Set(JUNE),
  '2025-11-25': new Set([...JUNE, 'basic/utilities/tasks']),
};

export const SPEC_ROOT = 'https://modelcontextprotocol.io/specification/';
export const SPEC_BASE = `${SPEC_ROOT}2026-07-28/`;

/** The spec page at `page` (`server/tools`) in `revision` when that revision has it, else in
 * 2026-07-28, whose pages the rule catalogue cites. */
function pageLink(page: string, revision: string | undefined): string {
  const own = revision !== undefined && Object.hasOwn(SPEC_PAGES, revision) && SPEC_PAGES[revision]!.has(page);
  return `${own ? `${SPEC_ROOT}${revision}/` : SPEC_BASE}${page}`;
}

/**
 * `basic/index.mdx §Requests` → a link to that page: in the revision of the traffic the finding is
 * about when that revision has the page, else in 2026-07-28.
 */
export function specLink(source: string, revision?: string): string {
  const key = revision === undefined || !Object.hasOwn(SPEC_PAGES, revision) ? source : `${revision} ${source}`;
  let link = links.get(key);
  if (link === undefined) {
    const page = source
      .split(/[;§ ]/)[0]!
      .replace(/\.mdx$/, '')
      .replace(/\/index$/, '');
    links.set(key, (link = pageLink(page, key === source ? undefined : revision)));
  }
  return link;
}
const links = new Map<string, string>();

/** A stored violation's `spec` link moved to the page of the session's revision (a recorder that
 * did not know the revision yet linked 2026-07-28); kept as it is when the revision is unknown or
 * the link points elsewhere. */
export function specLinkFor(stored: string, revision: string | undefined): string {
  if (revision === undefined || !stored.startsWith(SPEC_ROOT)) return stored;
  const [, ...page] = stored.slice(SPEC_ROOT.length).split('/');
  return pageLink(page.join('/'), revision);
}
