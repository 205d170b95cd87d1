import { isObject, type Observed, type Interest, type Rule } from '../rule.js';
import { idKey } from '../session-state.js';
import { pointer } from '../walk.js';
import { clientCapabilities } from './envelope.js';
import { TASKS, TASK_METHODS, clientRequest, extensionsOf, inputIdentity, memory, obj, params, result, taskInputs, type Json } from './negotiation.js';

/** An `Mcp-Name`/`Mcp-Param-*` value with its Base64 sentinel decoded. */
const headerValue = (v: string): string => {
  const m = /^=\?base64\?(.*)\?=$/.exec(v);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : v;
};
const pointerKey = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');
const TASKS_SOURCE = 'basic/versioning.mdx §Extension Negotiation';

// x-mcp-header (server/tools.mdx §x-mcp-header; basic/transports/streamable-http.mdx §Schema Extension)
const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_ONE = new Set(['items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']);
const SCHEMA_MANY = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);
const SENSITIVE_WORDS = new Set(['password', 'passwd', 'pwd', 'passphrase', 'secret', 'token', 'apikey', 'credential', 'credentials', 'authorization', 'cookie', 'ssn', 'cvv', 'email', 'phone']);
const SENSITIVE_PAIRS = /(api_key|access_key|private_key|session_id|credit_card|card_number|social_security)/;

/** A parameter or header name that suggests a secret or personal data (a heuristic). */
function sensitiveName(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  const counts = words.some((w) => ['count', 'limit', 'max', 'min', 'budget'].includes(w)); // max_tokens is no secret
  return (!counts && words.some((w) => SENSITIVE_WORDS.has(w))) || SENSITIVE_PAIRS.test(words.join('_'));
}

interface HeaderMark { value: unknown; path: string[]; schema: Json }

/** Every `x-mcp-header` in a schema, with the keyword path from the root (only schema keywords are walked, never data like `enum`). */
function headerMarks(schema: Json, path: string[] = [], out: HeaderMark[] = []): HeaderMark[] {
  if ('x-mcp-header' in schema) out.push({ value: schema['x-mcp-header'], path, schema });
  for (const [k, v] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(k) && isObject(v)) for (const [name, sub] of Object.entries(v)) if (isObject(sub)) headerMarks(sub, [...path, k, name], out);
    if (SCHEMA_ONE.has(k) && isObject(v)) headerMarks(v, [...path, k], out);
    if (SCHEMA_MANY.has(k) && Array.isArray(v)) v.forEach((sub, i) => isObject(sub) && headerMarks(sub, [...path, k, String(i)], out));
  }
  return out;
}

/** Why a tool's `x-mcp-header` annotations make its definition invalid, if they do. */
export function headerProblems(tool: Json): { path: string; problem: string }[] {
  const schema = obj(tool.inputSchema);
  if (!schema) return [];
  const seen = new Set<string>();
  const out: { path: string; problem: string }[] = [];
  for (const mark of headerMarks(schema)) {
    const at = `/inputSchema${pointer(mark.path)}/x-mcp-header`;
    const v = mark.value;
    if (typeof v !== 'string' || v === '') out.push({ path: at, problem: `x-mcp-header is ${JSON.stringify(v)}; it must be a non-empty header-name token` });
    else if (!TCHAR.test(v)) out.push({ path: at, problem: `x-mcp-header ${JSON.stringify(v)} is not an HTTP field-name token (RFC 9110 1*tchar)` });
    else if (seen.has(v.toLowerCase())) out.push({ path: at, problem: `x-mcp-header ${JSON.stringify(v)} repeats another annotation of this inputSchema (compared case-insensitively)` });
    if (typeof v === 'string') seen.add(v.toLowerCase());
    const types = (Array.isArray(mark.schema.type) ? mark.schema.type : mark.schema.type === undefined ? [] : [mark.schema.type]).map(String);
    // `null` may sit beside a primitive (the header is then omitted) but is no primitive itself.
    const bad = types.every((t) => t === 'null') ? types : types.filter((t) => !['string', 'integer', 'boolean', 'null'].includes(t));
    if (bad.length) out.push({ path: at, problem: `x-mcp-header on a property of type ${bad.join('/')}; only string, integer and boolean parameters may be mirrored` });
    const offPath = mark.path.find((seg, i) => i % 2 === 0 && seg !== 'properties');
    if (mark.path.length === 0 || offPath !== undefined) {
      out.push({ path: at, problem: mark.path.length === 0 ? 'x-mcp-header on the schema root' : `x-mcp-header under ${offPath}: an annotated property must be reachable from the root through properties keys only` });
    }
  }
  return out;
}

function listedTools(o: Observed): Json[] {
  const r = result(o);
  return o.request?.method === 'tools/list' && r && Array.isArray(r.tools) ? r.tools.map((t) => obj(t) ?? {}) : [];
}

/** x-mcp-header and the tasks extension (io.modelcontextprotocol/tasks, SEP-2663); they share negotiation.ts's session memory. */
export const extensionRules: Rule[] = [
  {
    id: 'TOOLS-XMCPHEADER-VALID', level: 'MUST', obs: '1', era: 'modern', source: 'server/tools.mdx §x-mcp-header',
    title: 'x-mcp-header values are unique tokens on statically reachable string, integer or boolean properties',
    on: ['server-result tools/list'],
    check(o, report, state) {
      memory(o, state);
      listedTools(o).forEach((t, i) => {
        for (const p of headerProblems(t)) report(`/result/tools/${i}${p.path}`, `${String(t.name)}: ${p.problem}; the tool definition is invalid`);
      });
    },
  },
  {
    id: 'TOOLS-XMCPHEADER-REJECT', level: 'MUST', obs: 'H', era: 'modern', transport: 'streamable-http', source: 'server/tools.mdx §x-mcp-header',
    title: 'An HTTP client does not call a tool whose x-mcp-header annotations are invalid',
    on: ['client-request tools/call'],
    check(o, report, state) {
      memory(o, state);
      const req = clientRequest(o);
      const name = req?.method === 'tools/call' ? params(req).name : undefined;
      const tool = typeof name === 'string' ? state.tools.get(name) : undefined;
      const problem = tool ? headerProblems(tool)[0] : undefined;
      if (problem) report('/params/name', `the client calls ${String(name)}, whose definition is invalid (${problem.problem}); HTTP clients must drop such tools from tools/list`);
    },
  },
  {
    id: 'TOOLS-XMCPHEADER-SENSITIVE', level: 'SHOULD NOT', obs: 'H', era: 'modern', source: 'server/tools.mdx §x-mcp-header',
    title: 'x-mcp-header does not mirror secrets or personal data into HTTP headers',
    on: ['server-result tools/list'],
    check(o, report, state) {
      memory(o, state);
      listedTools(o).forEach((t, i) => {
        for (const mark of headerMarks(obj(t.inputSchema) ?? {})) {
          const property = mark.path[mark.path.length - 1] ?? '';
          if (sensitiveName(property) || (typeof mark.value === 'string' && sensitiveName(mark.value))) {
            report(`/result/tools/${i}/inputSchema${pointer(mark.path)}/x-mcp-header`, `${String(t.name)} mirrors ${property} into an Mcp-Param header, visible to every intermediary; secrets and personal data stay in the body`);
          }
        }
      });
    },
  },
  {
    id: 'TASKS-NEGOTIATED', level: 'MUST NOT', obs: 'N', era: 'all', source: TASKS_SOURCE,
    title: 'A CreateTaskResult answers only requests that declared the tasks extension',
    on: ['server-result'],
    check(o, report, state) {
      memory(o, state);
      if (result(o)?.resultType !== 'task' || !o.request) return;
      if (o.request.era === 'legacy') report('/result/resultType', `resultType "task" in a session on ${o.revision ?? 'a 2025 revision'}; the CreateTaskResult of the tasks extension exists only with 2026-07-28 per-request negotiation (SEP-2663)`);
      else if (!(TASKS in extensionsOf(clientCapabilities(o.request.json)))) report('/result/resultType', `a CreateTaskResult, but request #${o.request.msg.seq} did not declare ${TASKS} in clientCapabilities.extensions (SEP-2663 §Capability Negotiation)`);
    },
  },
  {
    id: 'TASKS-32021', level: 'MUST', obs: 'N', era: 'modern', source: TASKS_SOURCE,
    title: 'A task-only request without the extension gets -32021 naming extensions["io.modelcontextprotocol/tasks"]',
    on: ['server-error'],
    check(o, report, state) {
      memory(o, state);
      const e = o.msg.direction === 'server-to-client' ? obj(o.json?.error) : undefined;
      const required = obj(obj(e?.data)?.requiredCapabilities);
      if (!e || !required) return;
      if (TASKS in extensionsOf(required) && e.code !== -32021) report('/error/code', `the error requires the ${TASKS} extension but has code ${String(e.code)}; a missing client capability is -32021 (SEP-2663 §Capability Negotiation)`);
      else if (e.code === -32021 && 'tasks' in required && !(TASKS in extensionsOf(required))) report('/error/data/requiredCapabilities/tasks', `-32021 names the 2025-era tasks capability; the extension goes in requiredCapabilities.extensions["${TASKS}"]`);
    },
  },
  {
    id: 'TASKS-RESULTTYPE', level: 'MUST', obs: '1', era: 'modern', source: TASKS_SOURCE,
    title: 'resultType "task" only on a CreateTaskResult; tasks/* results are "complete"',
    on: ['server-result'],
    check(o, report, state) {
      memory(o, state);
      const r = result(o);
      const method = o.request?.method;
      if (r?.resultType !== 'task' || !method) return;
      if (TASK_METHODS.has(method)) report('/result/resultType', `${method} answered with resultType "task"; its result has resultType "complete" (SEP-2663)`);
      // Without the extension TASKS-NEGOTIATED already reports the result; the shape is secondary.
      else if (method === 'tools/call' && TASKS in extensionsOf(clientCapabilities(o.request!.json)) && (typeof r.taskId !== 'string' || typeof r.status !== 'string')) {
        report('/result', 'resultType "task" on a result that is no CreateTaskResult (it needs taskId and status)');
      }
    },
  },
  {
    id: 'TASKS-METHODS', level: 'MUST', obs: 'N', era: 'modern', source: TASKS_SOURCE,
    title: 'Only tools/call returns a CreateTaskResult',
    on: ['server-result'],
    check(o, report, state) {
      memory(o, state);
      const method = o.request?.method;
      if (result(o)?.resultType === 'task' && method && method !== 'tools/call' && !TASK_METHODS.has(method)) {
        report('/result/resultType', `${method} answered with a CreateTaskResult; only tools/call supports tasks (SEP-2663 §Supported Methods), so clients must treat it as invalid`);
      }
    },
  },
  {
    id: 'TASKS-KEYS', level: 'MUST NOT', obs: 'N', era: 'modern', source: TASKS_SOURCE,
    title: 'An inputRequests key names one request over a task\'s lifetime',
    on: ['server-result tasks/get', 'server-request', 'server-notification'],
    check(o, report, state) {
      const m = memory(o, state);
      const inputs = taskInputs(o);
      const before = inputs ? m.taskKeys.get(inputs.taskId) : undefined;
      if (!inputs || !before) return;
      for (const [k, v] of Object.entries(inputs.inputRequests)) {
        const was = before.get(k);
        if (was !== undefined && was !== inputIdentity(v)) {
          report(`${inputs.at}/${pointerKey(k)}`, `key ${JSON.stringify(k)} of task ${inputs.taskId} now names a different input request than before; keys are never reused over a task's lifetime (SEP-2663)`);
        }
      }
    },
  },
  {
    id: 'TASKS-CANCEL-METHOD', level: 'MUST NOT', obs: 'N', era: 'modern', source: TASKS_SOURCE,
    title: 'Tasks are cancelled with tasks/cancel, never notifications/cancelled',
    on: ['client-request notifications/cancelled', 'client-notification notifications/cancelled'],
    check(o, report, state) {
      const m = memory(o, state);
      if (o.msg.direction !== 'client-to-server' || o.json?.method !== 'notifications/cancelled') return;
      const id = params(o.json).requestId;
      if (state.pending['client-to-server'].has(idKey(id))) return; // a request in flight: an ordinary cancellation
      const taskId = m.taskRequests.get(idKey(id)) ?? (typeof id === 'string' && m.taskIds.has(id) ? id : undefined);
      if (taskId !== undefined) report('/params/requestId', `notifications/cancelled aimed at task ${taskId}; tasks are cancelled with tasks/cancel (SEP-2663 §Task Cancellation)`);
    },
  },
  {
    id: 'TASKS-HTTP-MCP-NAME', level: 'MUST', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Standard Request Headers',
    title: 'tasks/get, tasks/update and tasks/cancel send Mcp-Name equal to params.taskId',
    on: [...TASK_METHODS].map((m): Interest => `client-request ${m}`),
    check(o, report, state) {
      memory(o, state);
      const req = clientRequest(o);
      if (!req || !TASK_METHODS.has(String(req.method)) || !o.msg.http) return;
      const taskId = params(req).taskId;
      const header = state.header(o.msg, 'mcp-name');
      if (header === undefined) report('/params/taskId', `${String(req.method)} without an Mcp-Name header; it must carry params.taskId so intermediaries can route to the task's instance (SEP-2663)`);
      else if (headerValue(header) !== taskId) report('/params/taskId', `Mcp-Name ${header} but params.taskId is ${JSON.stringify(taskId)}`);
    },
  },
];
