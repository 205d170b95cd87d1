import { isObject, since, type Rule } from '../rule.js';
import { dataProblem, dialectOf, schemaProblem } from '../json-schema.js';

const NAME = /^[A-Za-z0-9_.-]+$/;

function listedTools(o: Parameters<Rule['check']>[0]): Record<string, unknown>[] {
  if (o.request?.method !== 'tools/list' || !o.json || !isObject(o.json.result) || !Array.isArray(o.json.result.tools)) return [];
  return o.json.result.tools.filter(isObject);
}

/**
 * The same JSON value: objects are unordered, so members compare by name whatever their order,
 * and a member whose value is null counts as absent (a serialiser that omits null members and one
 * that writes them give the same value). Array elements compare in order, nulls included.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const present = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== null);
  const keys = present(a);
  return keys.length === present(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

function callResult(o: Parameters<Rule['check']>[0]): { name: string; result: Record<string, unknown> } | undefined {
  if (o.request?.method !== 'tools/call' || !o.json || !isObject(o.json.result)) return undefined;
  const params = isObject(o.request.json.params) ? o.request.json.params : undefined;
  return typeof params?.name === 'string' ? { name: params.name, result: o.json.result } : undefined;
}

/** §5 of RULES.md: tools. */
export const toolRules: Rule[] = [
  {
    id: 'TOOLS-NAME-LENGTH', level: 'SHOULD', obs: '1', era: 'all', source: 'server/tools.mdx §Tool Names',
    revisions: since('2025-11-25'),
    title: 'A tool name is 1-128 characters',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        if (typeof t.name === 'string' && (t.name.length < 1 || t.name.length > 128)) report(`/result/tools/${i}/name`, `tool name is ${t.name.length} characters long`);
      });
    },
  },
  {
    id: 'TOOLS-NAME-FORMAT', level: 'SHOULD', obs: '1', era: 'all', source: 'server/tools.mdx §Tool Names',
    revisions: since('2025-11-25'),
    title: 'A tool name uses only [A-Za-z0-9_.-]',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        if (typeof t.name === 'string' && t.name.length > 0 && !NAME.test(t.name)) report(`/result/tools/${i}/name`, `tool name ${JSON.stringify(t.name)} has characters outside [A-Za-z0-9_.-]`);
      });
    },
  },
  {
    id: 'TOOLS-NAME-UNIQUE', level: 'SHOULD', obs: 'N', era: 'all', source: 'server/tools.mdx §Tool Names',
    title: 'Tool names are unique within a server',
    on: ['result tools/list'],
    check(o, report) {
      const seen = new Set<string>();
      listedTools(o).forEach((t, i) => {
        if (typeof t.name !== 'string') return;
        if (seen.has(t.name)) report(`/result/tools/${i}/name`, `tool ${JSON.stringify(t.name)} is listed twice`);
        seen.add(t.name);
      });
    },
  },
  {
    id: 'TOOLS-INPUTSCHEMA-OBJ', level: 'MUST', obs: '1', era: 'all', source: 'server/tools.mdx §Tool',
    title: '`inputSchema` is a JSON Schema object whose root has type "object"',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        const s = t.inputSchema;
        if (!isObject(s)) report(`/result/tools/${i}/inputSchema`, `inputSchema of ${String(t.name)} is ${s === undefined ? 'missing' : JSON.stringify(s)}, not a JSON Schema object`);
        else if (s.type !== 'object') report(`/result/tools/${i}/inputSchema/type`, `inputSchema of ${String(t.name)} has root type ${JSON.stringify(s.type)}, not "object"`);
      });
    },
  },
  {
    id: 'TOOLS-SCHEMA-VALID', level: 'MUST', obs: '1', era: 'all', source: 'basic/index.mdx §JSON Schema Usage',
    title: '`inputSchema` and `outputSchema` are valid in their dialect (2020-12 by default)',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        for (const key of ['inputSchema', 'outputSchema'] as const) {
          const s = t[key];
          if (!isObject(s)) continue;
          const problem = schemaProblem(s);
          if (problem) report(`/result/tools/${i}/${key}`, `${key} of ${String(t.name)}: ${problem}`);
        }
      });
    },
  },
  {
    id: 'TOOLS-DIALECT-UNSUPPORTED', level: 'MUST', obs: '1', era: 'all', source: 'basic/index.mdx §Implementation Requirements',
    revisions: since('2025-11-25'),
    title: 'Tool schemas use a JSON Schema dialect clients support (2020-12 must be supported)',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        for (const key of ['inputSchema', 'outputSchema'] as const) {
          const s = t[key];
          if (isObject(s) && dialectOf(s) === 'unsupported') report(`/result/tools/${i}/${key}/$schema`, `${key} of ${String(t.name)} names dialect ${JSON.stringify(s.$schema)}, which clients are not required to support; use 2020-12`);
        }
      });
    },
  },
  {
    id: 'TOOLS-NOPARAM', level: 'REC', obs: '1', era: 'all', source: 'server/tools.mdx §Tool', severity: 'info',
    revisions: since('2025-11-25'),
    title: 'A tool without parameters uses {"type":"object","additionalProperties":false}',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        const s = t.inputSchema;
        if (isObject(s) && s.type === 'object' && (!isObject(s.properties) || Object.keys(s.properties).length === 0) && s.additionalProperties !== false &&
          !['oneOf', 'anyOf', 'allOf', '$ref', 'patternProperties', 'if'].some((k) => k in s)) {
          report(`/result/tools/${i}/inputSchema`, `${String(t.name)} takes no parameters; {"type":"object","additionalProperties":false} says so explicitly`);
        }
      });
    },
  },
  {
    id: 'TOOLS-OUTPUT-CONFORM', level: 'MUST', obs: 'N', era: 'all', source: 'server/tools.mdx §Output Schema',
    revisions: since('2025-06-18'),
    title: '`structuredContent` conforms to the tool\'s declared `outputSchema`',
    on: ['result tools/call'],
    check(o, report, state) {
      const call = callResult(o);
      if (!call || call.result.isError === true || call.result.resultType === 'input_required') return;
      const tool = state.tools.get(call.name);
      if (!tool || !isObject(tool.outputSchema)) return;
      if (!('structuredContent' in call.result)) return report('/result', `${call.name} declares an outputSchema but returned no structuredContent`);
      const problem = dataProblem(tool.outputSchema, call.result.structuredContent);
      if (problem) report('/result/structuredContent', `structuredContent of ${call.name} does not conform to its outputSchema: ${problem}`);
    },
  },
  {
    id: 'TOOLS-STRUCT-MIRROR', level: 'SHOULD', obs: '1', era: 'all', source: 'server/tools.mdx §Structured Content',
    revisions: since('2025-06-18'),
    title: 'structuredContent is also returned as serialized JSON in a text block',
    on: ['result tools/call'],
    check(o, report) {
      const call = callResult(o);
      if (!call || call.result.structuredContent === undefined || call.result.isError === true) return;
      const content = Array.isArray(call.result.content) ? call.result.content.filter(isObject) : [];
      const texts = content.filter((c) => c.type === 'text' && typeof c.text === 'string').map((c) => c.text as string);
      const mirrored = texts.some((text) => {
        try {
          return sameJson(JSON.parse(text), call.result.structuredContent);
        } catch {
          return false;
        }
      });
      if (!mirrored) report('/result/content', `${call.name} returned structuredContent, but no text block holds the same JSON value (compared as values: member order and null members aside)`);
    },
  },
  {
    id: 'TOOLS-ERR-PROTOCOL', level: 'desc', obs: 'N', era: 'all', source: 'server/tools.mdx §Error Handling',
    title: 'An unknown tool gets a JSON-RPC error, not an isError result',
    on: ['result tools/call'],
    check(o, report, state) {
      const call = callResult(o);
      if (!call || call.result.isError !== true || state.tools.size === 0 || state.tools.has(call.name)) return;
      report('/result/isError', `${call.name} is not in the last tools/list, yet the answer is an isError result; an unknown tool is a JSON-RPC error (-32602)`);
    },
  },
];
