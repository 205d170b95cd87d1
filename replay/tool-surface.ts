/**
 * The tool surface of a `tools/list` answer, tool by tool: what a model and a host rely on. Tools
 * are matched by name; a tool that disappeared while another with the same input schema appeared
 * is reported once, as a likely rename, rather than as an unrelated removal and addition.
 */
import { deepEqual, isObject } from './diff.js';
import { compareSchemas } from './schema-variance/index.js';
import type { Difference } from './types.js';

type Json = Record<string, unknown>;

export function byKey(list: unknown, key: string): Map<string, Json> {
  const m = new Map<string, Json>();
  if (Array.isArray(list)) for (const item of list) if (isObject(item)) m.set(String(item[key]), item);
  return m;
}

/**
 * The hints' values when absent. Spec 2025-11-25, schema `ToolAnnotations`: readOnlyHint
 * "Default: false", destructiveHint "Default: true", idempotentHint "Default: false",
 * openWorldHint "Default: true". An absent hint and its default say the same thing to a host.
 */
export const HINT_DEFAULTS: Readonly<Record<string, boolean>> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** A hint's effective value: what it says, or its default when absent (or not a boolean). */
export function hint(annotations: Json, name: keyof typeof HINT_DEFAULTS): boolean {
  const v = annotations[name];
  return typeof v === 'boolean' ? v : HINT_DEFAULTS[name]!;
}

export function toolSurface(recorded: unknown, live: unknown): Difference[] {
  const out: Difference[] = [];
  const r = byKey(recorded, 'name');
  const l = byKey(live, 'name');
  const renamed = likelyRenames(r, l);
  for (const [name, tool] of r) {
    const p = `/result/tools/${name}`;
    const lt = l.get(name);
    if (!lt) {
      const to = renamed.get(name);
      if (to !== undefined) {
        out.push({
          verdict: 'breaking',
          kind: 'tool-renamed',
          path: p,
          message: `tool "${name}" is gone and "${to}" appeared with the same input schema: likely renamed (callers of "${name}" break)`,
          recorded: name,
          live: to,
        });
      } else {
        out.push({ verdict: 'breaking', kind: 'tool-removed', path: p, message: `tool "${name}" was removed`, recorded: tool });
      }
      continue;
    }
    out.push(...toolChanges(name, tool, lt, p));
  }
  const renamedTo = new Set(renamed.values());
  for (const [name, tool] of l) {
    if (!r.has(name) && !renamedTo.has(name))
      out.push({
        verdict: 'compatible',
        kind: 'tool-added',
        path: `/result/tools/${name}`,
        message: `tool "${name}" was added`,
        live: tool,
      });
  }
  const rOrder = [...r.keys()].filter((n) => l.has(n));
  const lOrder = [...l.keys()].filter((n) => r.has(n));
  if (!deepEqual(rOrder, lOrder)) {
    out.push({
      verdict: 'warning',
      kind: 'tool-order-changed',
      path: '/result/tools',
      message: 'tools are listed in a different order (hosts and models may present them differently)',
      recorded: rOrder,
      live: lOrder,
    });
  }
  return out;
}

/** One tool present on both sides: text, annotations, input and output schemas, other fields. */
function toolChanges(name: string, tool: Json, lt: Json, p: string): Difference[] {
  const out: Difference[] = [];
  for (const key of ['description', 'title'] as const) {
    if (tool[key] !== lt[key])
      out.push({
        verdict: 'warning',
        kind: `tool-${key}-changed`,
        path: `${p}/${key}`,
        message: `tool "${name}": ${key} changed (models read it)`,
        recorded: tool[key],
        live: lt[key],
      });
  }
  out.push(
    ...annotations(
      name,
      isObject(tool.annotations) ? tool.annotations : {},
      isObject(lt.annotations) ? lt.annotations : {},
      `${p}/annotations`,
    ),
  );
  out.push(...inputSchemaChanges(name, tool.inputSchema, lt.inputSchema, p));
  if (tool.outputSchema !== undefined && lt.outputSchema === undefined) {
    out.push({
      verdict: 'breaking',
      kind: 'output-schema-removed',
      path: `${p}/outputSchema`,
      message: `tool "${name}" no longer declares an output schema (structuredContent is no longer promised)`,
      recorded: tool.outputSchema,
    });
  } else if (tool.outputSchema === undefined && lt.outputSchema !== undefined) {
    out.push({
      verdict: 'compatible',
      kind: 'output-schema-added',
      path: `${p}/outputSchema`,
      message: `tool "${name}" now declares an output schema`,
      live: lt.outputSchema,
    });
  } else if (tool.outputSchema !== undefined) {
    out.push(
      ...compareSchemas(tool.outputSchema, lt.outputSchema, 'output', ['result', 'tools', name, 'outputSchema'], `tool "${name}" output`),
    );
  }
  const judged = new Set(['name', 'description', 'title', 'annotations', 'inputSchema', 'outputSchema']);
  for (const key of new Set([...Object.keys(tool), ...Object.keys(lt)])) {
    if (judged.has(key) || deepEqual(tool[key], lt[key])) continue;
    out.push({
      verdict: key in tool ? 'warning' : 'compatible',
      kind: 'tool-changed',
      path: `${p}/${key}`,
      message: `tool "${name}": ${key} ${key in tool ? 'changed' : 'was added'}`,
      recorded: tool[key],
      live: lt[key],
    });
  }
  return out;
}

/** Whether a tool's input schema is what the spec requires: a JSON object schema with `type: "object"`. */
const isObjectSchema = (s: unknown): boolean => isObject(s) && s.type === 'object';

/**
 * A tool's input schema. The spec requires `inputSchema` to be an object schema (`type:
 * "object"`), and the official v1 SDK client checks it: one tool without it and the client refuses
 * the whole `tools/list` answer. A schema that lost it breaks every such client, whatever its
 * properties say (filesystem 2025.7.1 listed 11 tools with nothing but `$schema`), so it is one
 * difference for the tool, not a property-by-property comparison with a schema that constrains
 * nothing. One that gained it is a fix that declares arguments clients were never shown (a warning
 * to read them); otherwise the schemas are compared by variance.
 */
function inputSchemaChanges(name: string, recorded: unknown, live: unknown, p: string): Difference[] {
  if (isObjectSchema(recorded) && !isObjectSchema(live))
    return [
      {
        verdict: 'breaking',
        kind: 'input-schema-not-object',
        path: `${p}/inputSchema${isObject(live) ? '/type' : ''}`,
        message: `tool "${name}": inputSchema no longer has type "object" (the spec requires it; the official v1 client rejects the whole tools/list)`,
        recorded,
        live,
      },
    ];
  if (!isObjectSchema(recorded) && isObjectSchema(live))
    return [
      {
        verdict: 'warning',
        kind: 'input-schema-now-object',
        path: `${p}/inputSchema`,
        message: `tool "${name}": inputSchema now has type "object" (without it the official v1 client rejected the whole tools/list), and declares its arguments: read them`,
        recorded,
        live,
      },
    ];
  return compareSchemas(recorded ?? {}, live ?? {}, 'input', ['result', 'tools', name, 'inputSchema'], `tool "${name}" input`);
}

/**
 * Annotations by their effective values (absent hints take their spec defaults). Losing
 * readOnlyHint breaks (hosts may now ask before calling); becoming destructive in effect breaks:
 * a tool is destructive when it is not read-only and its destructiveHint is true or absent ("If
 * true, the tool may perform destructive updates... (This property is meaningful only when
 * readOnlyHint == false)"), so a read-only tool that lost readOnlyHint and says nothing about
 * destruction became destructive too. Any other change of meaning is a warning.
 */
function annotations(tool: string, r: Json, l: Json, p: string): Difference[] {
  const out: Difference[] = [];
  const rReadOnly = hint(r, 'readOnlyHint');
  const lReadOnly = hint(l, 'readOnlyHint');
  if (rReadOnly && !lReadOnly) {
    out.push({
      verdict: 'breaking',
      kind: 'readonly-hint-lost',
      path: `${p}/readOnlyHint`,
      message: `tool "${tool}" is no longer read-only (hosts may now ask before calling it)`,
      recorded: r.readOnlyHint,
      live: l.readOnlyHint,
    });
  }
  // Destructive in effect: not read-only, and destructiveHint true or absent.
  const destructiveGained = !(!rReadOnly && hint(r, 'destructiveHint')) && !lReadOnly && hint(l, 'destructiveHint');
  if (destructiveGained) {
    out.push({
      verdict: 'breaking',
      kind: 'destructive-hint-gained',
      path: `${p}/destructiveHint`,
      message: `tool "${tool}" is now marked destructive${l.destructiveHint === undefined ? ' (destructiveHint was dropped, and its default is true)' : ''}`,
      recorded: r.destructiveHint,
      live: l.destructiveHint,
    });
  }
  for (const key of new Set([...Object.keys(r), ...Object.keys(l)])) {
    const isHint = key in HINT_DEFAULTS;
    const same = isHint ? hint(r, key) === hint(l, key) : deepEqual(r[key], l[key]);
    if (same) continue;
    if ((key === 'readOnlyHint' && rReadOnly) || (key === 'destructiveHint' && destructiveGained)) continue;
    // While readOnlyHint is true, destructive and idempotent hints mean nothing (a gained
    // destruction is judged above).
    if ((key === 'destructiveHint' || key === 'idempotentHint') && (rReadOnly || lReadOnly)) continue;
    out.push({
      verdict: 'warning',
      kind: 'tool-annotations-changed',
      path: `${p}/${key}`,
      message: `tool "${tool}": annotation ${key} changed${isHint ? ` (${String(hint(r, key))} → ${String(hint(l, key))}, absent meaning ${String(HINT_DEFAULTS[key])})` : ''}`,
      recorded: r[key],
      live: l[key],
    });
  }
  return out;
}

/** Whether a schema constrains anything: a tool without parameters says nothing about identity. */
function hasProperties(schema: unknown): boolean {
  return isObject(schema) && isObject(schema.properties) && Object.keys(schema.properties).length > 0;
}

/**
 * Removed tool → added tool, where the pairing is unambiguous: the two have equal input schemas
 * (descriptions inside included) and no other removed or added tool has that schema too. Tools
 * without parameters pair only when their descriptions are equal as well, since any two of them
 * have the same schema.
 */
function likelyRenames(r: Map<string, Json>, l: Map<string, Json>): Map<string, string> {
  const removed = [...r].filter(([n]) => !l.has(n));
  const added = [...l].filter(([n]) => !r.has(n));
  const same = (a: Json, b: Json) =>
    deepEqual(a.inputSchema ?? {}, b.inputSchema ?? {}) &&
    (hasProperties(a.inputSchema) || (typeof a.description === 'string' && a.description === b.description));
  const out = new Map<string, string>();
  for (const [name, tool] of removed) {
    const candidates = added.filter(([, t]) => same(tool, t));
    if (candidates.length !== 1) continue;
    const [to, target] = candidates[0]!;
    if (removed.filter(([, t]) => same(t, target)).length !== 1) continue;
    out.set(name, to);
  }
  return out;
}
