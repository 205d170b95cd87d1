/** The keys by which the session state and the rules find a message again: a request by its id,
 * a retry by what it asks, a revision in a request's _meta, and the array a list answers with. */
import { isObject } from './rule.js';

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';

export function idKey(id: unknown): string {
  // A JSON number's text is what String gives (JSON has no NaN or Infinity); the rest as JSON.
  return typeof id === 'number' ? String(id) : JSON.stringify(id ?? null);
}

export function revisionOf(json: Record<string, unknown>): string | undefined {
  const params = isObject(json.params) ? json.params : undefined;
  const meta = params && isObject(params._meta) ? params._meta : undefined;
  const v = meta?.[META_VERSION];
  return typeof v === 'string' ? v : undefined;
}

/** What makes a retry the same request: method, and the tool, prompt or resource it names. */
export function mrtrKey(request: Record<string, unknown>): string {
  const p = isObject(request.params) ? request.params : {};
  return JSON.stringify([request.method, p.name ?? p.uri ?? null, p.arguments ?? null]);
}

/** The array each list method answers with. */
export const LIST_KEYS: Record<string, string> = { 'tools/list': 'tools', 'resources/list': 'resources', 'prompts/list': 'prompts' };
