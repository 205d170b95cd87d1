/**
 * What the MCP specification defines, over every revision this project knows: the revisions
 * themselves and the JSON-RPC methods of each (the `method` constants of each revision's
 * schema.json). The one home of both lists: the validator's revision gates split the methods by
 * era, and the metrics label a request by its method only when the specification defines it (a
 * client's raw `method` would make a Prometheus series per distinct value).
 */

/** The protocol revisions, oldest first (revision strings are dates, so they also sort by age). */
export const KNOWN_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

/** Methods of every 2025-era revision that 2026-07-28 dropped (the handshake, ping, logging level,
 * resource subscriptions). */
export const LEGACY_ONLY = [
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/initialized',
  'notifications/roots/list_changed',
];
/** Tasks: 2025-11-25 only (2026-07-28 moved them to an extension). */
export const TASK_METHODS = ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel', 'notifications/tasks/status'];
/** URL-mode elicitation's completion notice: 2025-11-25 only. */
export const ELICITATION_COMPLETE = 'notifications/elicitation/complete';
/** What 2026-07-28 added. */
export const MODERN_ONLY = ['server/discover', 'subscriptions/listen', 'notifications/subscriptions/acknowledged'];
/** The methods every revision has (elicitation/create from 2025-06-18 on). */
export const COMMON = [
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
  'notifications/cancelled',
  'notifications/message',
  'notifications/progress',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/tools/list_changed',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
];

/** Every method some revision of the specification defines. */
export const SPEC_METHODS: ReadonlySet<string> = new Set([
  ...COMMON,
  ...LEGACY_ONLY,
  ...TASK_METHODS,
  ELICITATION_COMPLETE,
  ...MODERN_ONLY,
]);

const REVISIONS: ReadonlySet<string> = new Set(KNOWN_REVISIONS);

/** Whether `method` is a method of the specification (any revision). */
export function isSpecMethod(method: unknown): method is string {
  return typeof method === 'string' && SPEC_METHODS.has(method);
}

/** Whether `version` is a protocol revision of the specification. */
export function isSpecRevision(version: unknown): version is string {
  return typeof version === 'string' && REVISIONS.has(version);
}
