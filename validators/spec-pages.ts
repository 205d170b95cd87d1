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
