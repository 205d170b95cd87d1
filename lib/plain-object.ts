/** Whether a parsed JSON value is an object with members (not null, not an array): the one test
 * every reader of messages, cassettes and configs uses before it looks at a member. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
