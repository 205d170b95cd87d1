/** TOOLS rules on `tools/call`: execution vs protocol errors, structured output, retries. */
import { dataProblem } from '../../json-schema.js';
import { isObject, type Rule, since } from '../../rule.js';
import { refusable, retryOf } from '../support/messages.js';

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

export const callRules: Rule[] = [
  {
    id: 'TOOLS-ERR-EXECUTION',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Error Handling',
    title: 'Errors from inside a tool are isError results, not JSON-RPC errors',
    on: ['error tools/call'],
    check(o, report, state) {
      if (o.request?.method !== 'tools/call' || !o.json || !isObject(o.json.error)) return;
      const params = isObject(o.request.json.params) ? o.request.json.params : {};
      const code = o.json.error.code;
      if (typeof params.name !== 'string' || !state.tools.has(params.name)) return; // unknown tool: a JSON-RPC error is right
      if (code === -32601 || code === -32020 || code === -32021 || code === -32022) return;
      // Before SEP-1303 (2025-11-25) invalid arguments were a protocol error.
      if (code === -32602 && o.revision !== undefined && o.revision < '2025-11-25') return;
      if (refusable(o.request, state)) return; // an invalid request is a JSON-RPC error (TOOLS-ERR-PROTOCOL)
      report(
        '/error',
        `${params.name} is a listed tool, yet its failure came back as JSON-RPC error ${String(code)}; tool failures and invalid arguments are results with isError: true (SEP-1303)`,
      );
    },
  },
  {
    id: 'TOOLS-OUTPUT-CONFORM',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Output Schema',
    revisions: since('2025-06-18'),
    title: "`structuredContent` conforms to the tool's declared `outputSchema`",
    on: ['result tools/call'],
    check(o, report, state) {
      const call = callResult(o);
      if (!call || call.result.isError === true || call.result.resultType === 'input_required') return;
      const tool = state.tools.get(call.name);
      if (!tool || !isObject(tool.outputSchema)) return;
      if (!('structuredContent' in call.result))
        return report('/result', `${call.name} declares an outputSchema but returned no structuredContent`);
      const problem = dataProblem(tool.outputSchema, call.result.structuredContent);
      if (problem)
        report('/result/structuredContent', `structuredContent of ${call.name} does not conform to its outputSchema: ${problem}`);
    },
  },
  {
    id: 'TOOLS-STRUCT-MIRROR',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    source: 'server/tools.mdx §Structured Content',
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
      if (!mirrored)
        report(
          '/result/content',
          `${call.name} returned structuredContent, but no text block holds the same JSON value (compared as values: member order and null members aside)`,
        );
    },
  },
  {
    id: 'TOOLS-ERR-PROTOCOL',
    level: 'desc',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Error Handling',
    title: 'An unknown tool gets a JSON-RPC error, not an isError result',
    on: ['result tools/call'],
    check(o, report, state) {
      const call = callResult(o);
      if (!call || call.result.isError !== true || state.tools.size === 0 || state.tools.has(call.name)) return;
      report(
        '/result/isError',
        `${call.name} is not in the last tools/list, yet the answer is an isError result; an unknown tool is a JSON-RPC error (-32602)`,
      );
    },
  },
  {
    id: 'TOOLS-RETRY-NEW-ID',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'server/tools.mdx §Calling Tools',
    title: 'The MRTR retry of tools/call uses a new JSON-RPC id',
    on: ['client-request tools/call'],
    check(o, report, state) {
      const r = retryOf(o, state);
      if (r && o.json?.method === 'tools/call' && JSON.stringify(r.issued.id) === JSON.stringify(r.id))
        report('/id', `the tools/call retry reuses id ${JSON.stringify(r.id)} of the call it retries`);
    },
  },
];
