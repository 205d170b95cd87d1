import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadCassette } from '../../lib/cassette/store.js';
import { isObject } from '../../validators/rule.js';
import { isRevision, REVISIONS, targetOf, type Revision } from '../../validators/structure/check.js';
import { SessionState } from '../../validators/session-state.js';
import { fixtureSession, loadFixtures } from './fixtures.js';
import { root, specDir } from './paths.js';

/** One corpus entry: a value of a spec type, judged under one revision. */
export interface CorpusItem {
  revision: Revision;
  type: string;
  value: unknown;
  origin: string;
}

/** The official schema of a revision as an oracle (read from the spec folder, never copied: paths.ts specDir). */
export function officialOracle(revision: Revision): (type: string, value: unknown) => boolean | undefined {
  const doc = JSON.parse(readFileSync(join(specDir!, revision, 'schema.json'), 'utf8')) as Record<string, unknown>;
  const key = isObject(doc.$defs) ? '$defs' : 'definitions';
  const defs = doc[key] as Record<string, unknown>;
  // Formats are annotations in these dialects (the oracle the spec's own examples were checked with).
  const ajv =
    key === 'definitions' ? new Ajv({ strict: false, validateFormats: false }) : new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ ...doc, $id: 'mcp://oracle' });
  const cache = new Map<string, ValidateFunction>();
  return (type, value) => {
    if (!(type in defs)) return undefined;
    let v = cache.get(type);
    if (!v) cache.set(type, (v = ajv.getSchema(`mcp://oracle#/${key}/${type}`)!));
    // The 2025-06-18 file types requests and notifications as method + params only.
    if (key === 'definitions' && isObject(value) && typeof value.method === 'string')
      value = { method: value.method, ...(value.params !== undefined ? { params: value.params } : {}) };
    return v(value);
  };
}

/**
 * The 129 official 2026-07-28 examples, typed by their folder. Examples of building blocks that
 * every revision has (Tool, TextContent, Resource…, not whole messages) are judged under the
 * earlier revisions too.
 */
export function officialExamples(): CorpusItem[] {
  const base = join(specDir!, '2026-07-28', 'examples');
  return readdirSync(base)
    .sort()
    .flatMap((type) =>
      readdirSync(join(base, type))
        .sort()
        .flatMap((f) => {
          const value = JSON.parse(readFileSync(join(base, type, f), 'utf8')) as unknown;
          // Bare results too: the same value is a result of that type in every revision that has it.
          const fragment = !/(Request|Notification|Response|Error|Params|Requests|Responses)$/.test(type);
          const revisions: readonly Revision[] = fragment ? REVISIONS : ['2026-07-28'];
          return revisions.map((revision) => ({ revision, type, value, origin: `example ${type}/${f}@${revision}` }));
        }),
    );
}

const LEGACY = REVISIONS.filter((r) => r !== '2026-07-28');

/** Every message of our cassettes (examples and rule fixtures), typed as the validator types them. */
export function cassetteMessages(): CorpusItem[] {
  const sessions = [
    ...readdirSync(join(root, 'cassettes', 'examples'))
      .filter((f) => f.endsWith('.json'))
      .flatMap((f) => loadCassette(join(root, 'cassettes', 'examples', f)).sessions),
    ...loadFixtures().map(fixtureSession),
  ];
  const out: CorpusItem[] = [];
  for (const s of sessions) {
    const state = new SessionState(s);
    for (const m of s.messages) {
      const o = state.observe(m);
      const revision = o.revision;
      // Handshake-era traffic is judged under every handshake revision: the verdicts must agree with each file.
      const revisions: readonly Revision[] = !isRevision(revision) ? [] : revision === '2026-07-28' ? [revision] : LEGACY;
      for (const r of revisions) {
        const t = o.json && targetOf(o.json, r, o.request?.method);
        if (t) out.push({ revision: r, type: t.type, value: t.value, origin: `${s.id}#${m.seq}@${r}` });
      }
      state.commit(o);
    }
  }
  return out;
}

const swap = (v: unknown): unknown =>
  typeof v === 'string' ? 42 : typeof v === 'number' ? 'x' : typeof v === 'boolean' ? 'x' : v === null ? 0 : Array.isArray(v) ? {} : [];

/**
 * Mutated copies: every member removed, every value replaced by one of another JSON type, an
 * unknown member added, down to `maxDepth`.
 */
export function mutations(item: CorpusItem, maxDepth = 6): CorpusItem[] {
  const out: CorpusItem[] = [];
  const visit = (node: unknown, path: (string | number)[]): void => {
    if (path.length > maxDepth) return;
    if (Array.isArray(node)) node.forEach((v, i) => visit(v, [...path, i]));
    else if (isObject(node)) for (const k of Object.keys(node)) visit(node[k], [...path, k]);
    if (path.length === 0) {
      if (isObject(node)) out.push({ ...item, value: { ...node, xUnknownMember: true }, origin: `${item.origin} +member` });
      return;
    }
    const at = path.join('/');
    out.push({ ...item, value: setAt(item.value, path, swap(node)), origin: `${item.origin} ${at}=${JSON.stringify(swap(node))}` });
    if (typeof path[path.length - 1] === 'string')
      out.push({ ...item, value: setAt(item.value, path, undefined), origin: `${item.origin} -${at}` });
  };
  visit(item.value, []);
  return out;
}

function setAt(value: unknown, path: (string | number)[], to: unknown): unknown {
  if (path.length === 0) return to;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head as number] = setAt(copy[head as number], rest, to);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  const next = setAt(copy[head as string], rest, to);
  if (next === undefined) delete copy[head as string];
  else copy[head as string] = next;
  return copy;
}
