import type { Rule } from '../../rule.js';
import { encodingRules } from './encoding.js';
import { headersRules } from './headers.js';
import { revisionsRules } from './revisions.js';
import { streamsRules } from './streams.js';

/**
 * The Streamable HTTP rules (RULES.md §19), by subject: the request headers and what a modern
 * server validates (headers.ts), the exchanges and their SSE streams (streams.ts), header value
 * encoding (encoding.ts), and what differs between revisions (revisions.ts).
 */
export const httpRules: readonly Rule[] = [...headersRules, ...streamsRules, ...encodingRules, ...revisionsRules];
