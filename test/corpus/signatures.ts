/**
 * A replay result as a set of difference signatures, `method name kind verdict`, the form the
 * ground truth in version-pairs.test.ts is written in. `name` says what changed:
 * - a tool, prompt or resource call: the name or URI it was called with;
 * - a list: the item (tool name, prompt name, resource URI, template), `old->new` for a rename,
 *   `tool.annotation` for an annotation, `-` for the list as a whole (e.g. its order);
 * - initialize: the field under `result` (e.g. `capabilities/tasks`, `serverInfo/name`);
 * - a request the server sent to the client: method `(server request)` and its method as name,
 *   whatever client request it arrived during (that depends on timing).
 */
import type { Difference, InteractionResult, ReplayResult } from '../../replay/index.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The id of a listed item: a tool's or prompt's name, a resource's URI, a template. */
function itemId(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (!isObject(v)) return undefined;
  for (const k of ['uri', 'uriTemplate', 'name']) if (typeof v[k] === 'string') return v[k] as string;
  return undefined;
}

const ANNOTATION_KINDS = new Set(['readonly-hint-lost', 'destructive-hint-gained', 'tool-annotations-changed']);
/** The method of a server→client request, as the message of a difference about it names it. */
const SERVER_METHOD = /\b((?:roots|sampling|elicitation)\/[A-Za-z]+)/;

function nameOf(i: InteractionResult, d: Difference): string {
  if (d.kind === 'tool-renamed') return `${itemId(d.recorded) ?? '?'}->${itemId(d.live) ?? '?'}`;
  if (i.method === 'initialize') return d.path.replace(/^\/result\//, '') || '-';
  if (i.method.endsWith('/list')) {
    const m = /^\/result\/(?:tools|prompts|resources|resourceTemplates)\/(.+)$/.exec(d.path);
    if (!m) return '-';
    const item = itemId(d.kind.endsWith('-removed') ? d.recorded : d.live) ?? itemId(d.recorded);
    if (item !== undefined && (d.kind.endsWith('-added') || d.kind.endsWith('-removed'))) return item;
    const segments = m[1]!.split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (ANNOTATION_KINDS.has(d.kind)) return `${segments[0]}.${segments.at(-1)}`;
    return segments[0]!;
  }
  return i.name ?? '-';
}

export function signature(i: InteractionResult, d: Difference): string {
  const server = SERVER_METHOD.exec(d.message);
  if (server && (d.kind.startsWith('server-request') || d.kind === 'unexpected-server-request'))
    return `(server request) ${server[1]} ${d.kind} ${d.verdict}`;
  return `${i.method} ${nameOf(i, d)} ${d.kind} ${d.verdict}`;
}

/** Every difference of the replay as a sorted set of signatures. */
export function signatures(r: ReplayResult): string[] {
  const out = new Set<string>();
  for (const s of r.sessions) for (const i of s.interactions) for (const d of i.differences) out.add(signature(i, d));
  return [...out].sort();
}
