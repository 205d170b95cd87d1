/** RULES.md §17: the tasks extension (TASKS). */
import {
  type BareExchangeRule,
  type ExchangeRule,
  type Interest,
  isObject,
  type Observed,
  type Rule,
  type SessionEndRule,
} from '../rule.js';
import { idKey } from '../session-state.js';
import { perSession } from './support/http.js';
import {
  clientCapabilities,
  clientRequest,
  extensionsOf,
  type Json,
  notification,
  obj,
  params,
  result,
  TASK_METHODS,
  TASKS,
} from './support/messages.js';
import { inputIdentity, memoryOf, taskInputs } from './support/negotiated.js';
import { pointerToken } from '../../lib/json-pointer.js';

/** An `Mcp-Name`/`Mcp-Param-*` value with its Base64 sentinel decoded. */
const headerValue = (v: string): string => {
  const m = /^=\?base64\?(.*)\?=$/.exec(v);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : v;
};

const TASKS_SOURCE = 'basic/versioning.mdx §Extension Negotiation';

// --- TASKS-STATUS (SEP-2663 §Task Status, §Task Polling, §Task Execution Errors) ----------------

const TASK_STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** A task as the server showed it: a tasks/get result, a notifications/tasks/status, or the seed
 * of a CreateTaskResult (which carries no result, error or inputRequests). */
function taskView(o: Observed): { task: Json; at: string; taskId?: string; seed: boolean } | undefined {
  if (o.msg.direction !== 'server-to-client' || !o.json) return undefined;
  const r = obj(o.json.result);
  if (r && o.request?.method === 'tasks/get')
    return { task: r, at: '/result', ...idOf(r.taskId ?? params(o.request.json).taskId), seed: false };
  if (r && o.request?.method === 'tools/call' && r.resultType === 'task') return { task: r, at: '/result', ...idOf(r.taskId), seed: true };
  const p = notification(o, 'notifications/tasks/status');
  return p ? { task: p, at: '/params', ...idOf(p.taskId), seed: false } : undefined;
}

const idOf = (v: unknown): { taskId?: string } => (typeof v === 'string' ? { taskId: v } : {});

/** What is missing or wrong beside a task's status (the DetailedTask variants). */
function companionProblem(status: string, task: Json): string | undefined {
  if (status === 'input_required' && !isObject(task.inputRequests)) return 'an input_required task carries its outstanding inputRequests';
  if (status === 'completed' && !isObject(task.result)) return 'a completed task carries its final result in `result`';
  if (status !== 'failed') return undefined;
  const e = task.error;
  if (!isObject(e)) {
    return isObject(task.result) && task.result.isError === true
      ? 'a tool result with isError: true is a completed task (status completed, the result in `result`); failed is only for JSON-RPC errors'
      : 'a failed task carries the JSON-RPC error in `error`';
  }
  if (!Number.isInteger(e.code) || typeof e.message !== 'string')
    return "a failed task's `error` is a JSON-RPC error object ({code: integer, message: string})";
  return undefined;
}

const terminalOf = perSession(() => new Map<string, { status: string; seq: number }>());

/** The task's `ttlMs` had run out by its own `lastUpdatedAt` (the TTL runs from `createdAt`). */
function ttlElapsed(task: Json): boolean {
  const created = typeof task.createdAt === 'string' ? Date.parse(task.createdAt) : Number.NaN;
  const updated = typeof task.lastUpdatedAt === 'string' ? Date.parse(task.lastUpdatedAt) : Number.NaN;
  return typeof task.ttlMs === 'number' && updated >= created + task.ttlMs;
}

export const taskRules: (Rule | ExchangeRule | BareExchangeRule | SessionEndRule)[] = [
  {
    id: 'TASKS-NEGOTIATED',
    level: 'MUST NOT',
    obs: 'N',
    era: 'all',
    source: TASKS_SOURCE,
    title: 'A CreateTaskResult answers only requests that declared the tasks extension',
    on: ['server-result'],
    check(o, report, state) {
      memoryOf(o, state);
      if (result(o)?.resultType !== 'task' || !o.request) return;
      if (o.request.era === 'legacy')
        report(
          '/result/resultType',
          `resultType "task" in a session on ${o.revision ?? 'a 2025 revision'}; the CreateTaskResult of the tasks extension exists only with 2026-07-28 per-request negotiation (SEP-2663)`,
        );
      else if (!(TASKS in extensionsOf(clientCapabilities(o.request.json))))
        report(
          '/result/resultType',
          `a CreateTaskResult, but request #${o.request.msg.seq} did not declare ${TASKS} in clientCapabilities.extensions (SEP-2663 §Capability Negotiation)`,
        );
    },
  },
  {
    id: 'TASKS-32021',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: TASKS_SOURCE,
    title: 'A task-only request without the extension gets -32021 naming extensions["io.modelcontextprotocol/tasks"]',
    on: ['server-error'],
    check(o, report, state) {
      memoryOf(o, state);
      const e = o.msg.direction === 'server-to-client' ? obj(o.json?.error) : undefined;
      const required = obj(obj(e?.data)?.requiredCapabilities);
      if (!e || !required) return;
      if (TASKS in extensionsOf(required) && e.code !== -32021)
        report(
          '/error/code',
          `the error requires the ${TASKS} extension but has code ${String(e.code)}; a missing client capability is -32021 (SEP-2663 §Capability Negotiation)`,
        );
      else if (e.code === -32021 && 'tasks' in required && !(TASKS in extensionsOf(required)))
        report(
          '/error/data/requiredCapabilities/tasks',
          `-32021 names the 2025-era tasks capability; the extension goes in requiredCapabilities.extensions["${TASKS}"]`,
        );
    },
  },
  {
    id: 'TASKS-RESULTTYPE',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    source: TASKS_SOURCE,
    title: 'resultType "task" only on a CreateTaskResult; tasks/* results are "complete"',
    on: ['server-result'],
    check(o, report, state) {
      memoryOf(o, state);
      const r = result(o);
      const method = o.request?.method;
      if (r?.resultType !== 'task' || !method) return;
      if (TASK_METHODS.has(method))
        report('/result/resultType', `${method} answered with resultType "task"; its result has resultType "complete" (SEP-2663)`);
      // Without the extension TASKS-NEGOTIATED already reports the result; the shape is secondary.
      else if (
        method === 'tools/call' &&
        TASKS in extensionsOf(clientCapabilities(o.request!.json)) &&
        (typeof r.taskId !== 'string' || typeof r.status !== 'string')
      ) {
        report('/result', 'resultType "task" on a result that is no CreateTaskResult (it needs taskId and status)');
      }
    },
  },
  {
    id: 'TASKS-METHODS',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: TASKS_SOURCE,
    title: 'Only tools/call returns a CreateTaskResult',
    on: ['server-result'],
    check(o, report, state) {
      memoryOf(o, state);
      const method = o.request?.method;
      if (result(o)?.resultType === 'task' && method && method !== 'tools/call' && !TASK_METHODS.has(method)) {
        report(
          '/result/resultType',
          `${method} answered with a CreateTaskResult; only tools/call supports tasks (SEP-2663 §Supported Methods), so clients must treat it as invalid`,
        );
      }
    },
  },
  {
    id: 'TASKS-KEYS',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    source: TASKS_SOURCE,
    title: "An inputRequests key names one request over a task's lifetime",
    on: ['server-result tasks/get', 'server-request', 'server-notification'],
    check(o, report, state) {
      const m = memoryOf(o, state);
      const inputs = taskInputs(o);
      const before = inputs ? m.taskKeys.get(inputs.taskId) : undefined;
      if (!inputs || !before) return;
      for (const [k, v] of Object.entries(inputs.inputRequests)) {
        const was = before.get(k);
        if (was !== undefined && was !== inputIdentity(v)) {
          report(
            `${inputs.at}/${pointerToken(k)}`,
            `key ${JSON.stringify(k)} of task ${inputs.taskId} now names a different input request than before; keys are never reused over a task's lifetime (SEP-2663)`,
          );
        }
      }
    },
  },
  {
    id: 'TASKS-CANCEL-METHOD',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    source: TASKS_SOURCE,
    title: 'Tasks are cancelled with tasks/cancel, never notifications/cancelled',
    on: ['client-request notifications/cancelled', 'client-notification notifications/cancelled'],
    check(o, report, state) {
      const m = memoryOf(o, state);
      if (o.msg.direction !== 'client-to-server' || o.json?.method !== 'notifications/cancelled') return;
      const id = params(o.json).requestId;
      if (state.pending['client-to-server'].has(idKey(id))) return; // a request in flight: an ordinary cancellation
      const taskId = m.taskRequests.get(idKey(id)) ?? (typeof id === 'string' && m.taskIds.has(id) ? id : undefined);
      if (taskId !== undefined)
        report(
          '/params/requestId',
          `notifications/cancelled aimed at task ${taskId}; tasks are cancelled with tasks/cancel (SEP-2663 §Task Cancellation)`,
        );
    },
  },
  {
    id: 'TASKS-HTTP-MCP-NAME',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Standard Request Headers',
    title: 'tasks/get, tasks/update and tasks/cancel send Mcp-Name equal to params.taskId',
    on: [...TASK_METHODS].map((m): Interest => `client-request ${m}`),
    check(o, report, state) {
      memoryOf(o, state);
      const req = clientRequest(o);
      if (!req || !TASK_METHODS.has(String(req.method)) || !o.msg.http) return;
      const taskId = params(req).taskId;
      const header = state.header(o.msg, 'mcp-name');
      if (header === undefined)
        report(
          '/params/taskId',
          `${String(req.method)} without an Mcp-Name header; it must carry params.taskId so intermediaries can route to the task's instance (SEP-2663)`,
        );
      else if (headerValue(header) !== taskId)
        report('/params/taskId', `Mcp-Name ${header} but params.taskId is ${JSON.stringify(taskId)}`);
    },
  },
  {
    id: 'TASKS-STATUS',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'basic/versioning.mdx §Extension Negotiation',
    title: 'A task status is one of the five, with its companion field; terminal states never change',
    on: ['server-result tasks/get', 'server-result tools/call', 'server-notification notifications/tasks/status'],
    check(o, report, state) {
      const view = taskView(o);
      if (!view) return;
      const { task, at, taskId, seed } = view;
      const status = task.status;
      if (typeof status !== 'string' || !TASK_STATUSES.has(status)) {
        return report(
          `${at}/status`,
          `task status ${JSON.stringify(status)} is none of working, input_required, completed, failed, cancelled (SEP-2663 §Task Status)`,
        );
      }
      // A CreateTaskResult is only the seed: result, error and inputRequests come with tasks/get.
      const problem = seed ? undefined : companionProblem(status, task);
      if (problem)
        report(
          status === 'failed' && isObject(task.error) ? `${at}/error` : at,
          `task${taskId ? ` ${taskId}` : ''} is ${status}, but ${problem} (SEP-2663)`,
        );
      if (taskId === undefined) return;
      const terminal = terminalOf(state);
      const before = terminal.get(taskId);
      // Servers MAY mark a task failed once its TTL has elapsed (SEP-2663 §Task Polling): a TTL
      // that has not run out by the task's own clock excuses nothing.
      if (before && before.status !== status && !(status === 'failed' && ttlElapsed(task))) {
        report(
          `${at}/status`,
          `task ${taskId} is ${status}, but message #${before.seq} showed it ${before.status}: a terminal status never changes`,
        );
      }
      if (!before && TERMINAL.has(status)) terminal.set(taskId, { status, seq: o.msg.seq });
    },
  },
];
