/** What more than one TOOLS rule file needs. */
import { isObject, type Rule } from '../../rule.js';

export function listedTools(o: Parameters<Rule['check']>[0]): Record<string, unknown>[] {
  if (o.request?.method !== 'tools/list' || !o.json || !isObject(o.json.result) || !Array.isArray(o.json.result.tools)) return [];
  return o.json.result.tools.filter(isObject);
}
