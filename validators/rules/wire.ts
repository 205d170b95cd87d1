import type { Rule } from '../rule.js';
import { authRules } from './auth.js';
import { wireHttpRules } from './wire-http.js';
import { wireStdioRules } from './wire-stdio.js';

/** stdio, Streamable HTTP, authorization and local-server rules added after the first catalogue
 * pass (see the rule catalogue (RULES.md)): wire-stdio.ts (§18), wire-http.ts (§19), auth.ts (§20, §22). */
export const wireRules: Rule[] = [...wireStdioRules, ...wireHttpRules, ...authRules];
