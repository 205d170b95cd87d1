import * as core from '@modelcontextprotocol/core';
import { z } from 'zod';
import type { Revision } from './check.js';
import {
  all,
  allOf,
  any,
  arrayOf,
  asParser,
  described,
  id,
  int,
  lit,
  obj,
  oneOf,
  opt,
  rec,
  sdk,
  str,
  tagged,
  type Check,
  type Problem,
} from './checks.js';
import { NOTIFICATION_TYPE, REQUEST_TYPE, type Parser } from './sdk.js';

/**
 * Revision gates. The SDK's schemas model every revision at once (the 2025 era and 2026-07-28
 * together), so on their own they are too loose for one revision and, in places, too strict for
 * another. Per revision, a gate set says which message types exist, which SDK schemas are
 * corrected (built from the SDK schema with `.extend`, never written from scratch), and which
 * overlay constraints apply on top. The differential test
 * (test/validators/structure-differential.test.ts) proves the result agrees with the official
 * schema of each revision on the official examples, our cassettes and mutated copies of them.
 */
export interface Gates {
  /** Whether the revision defines this type. */
  knows(type: string): boolean;
  /** Extra constraints checked in addition to the (possibly corrected) SDK schema. */
  extra: Record<string, (value: unknown, out: Problem[]) => void>;
  /** SDK schemas corrected for this revision. */
  replace: Record<string, Parser>;
  /** Requests that may be answered with an InputRequiredResult. */
  inputRequiredFor: Set<string>;
  errorType: string;
  /** Problems at members this revision does not type yet (the SDK types what later revisions added). */
  untyped?: (type: string, path: string) => boolean;
}

/** `.extend` on an SDK object schema (typed loosely: the SDK's inferred types are not ours to track). */
const extend = (schema: unknown, shape: Record<string, z.ZodType>): z.ZodObject => (schema as z.ZodObject).extend(shape);

/** Checks run after the SDK schema, as `extra` entries (with their JSON Schema, see checks.ts). */
const overlay = (...checks: Check[]) =>
  described((value: unknown, out: Problem[]): void => {
    for (const c of checks) c(value, [], out);
  }, allOf(checks));

// ---- shared pieces ------------------------------------------------------------------------------

// clientCapabilities, clientInfo and serverInfo repeat on every message, and ClientCapabilities is
// slow to run (~20 µs): their verdicts are kept by JSON text.
const clientCapabilities = sdk(core.ClientCapabilitiesSchema, true);
const implementation = sdk(core.ImplementationSchema, true);
const jsonrpc = lit('2.0');
const requestEnvelope = obj({ jsonrpc, id });
const notificationEnvelope = obj({ jsonrpc });
/** The SDK's error response rejects unknown members; JSON-RPC and every revision allow them. */
const errorResponse = (core.JSONRPCErrorResponseSchema as unknown as z.ZodObject).loose();
/** The SDK's EmptyResult rejects unknown members; the spec's Result allows them. */
const emptyResult = (core.EmptyResultSchema as unknown as z.ZodObject).loose();
/** `content` is required on a CallToolResult in every revision; the SDK fills in a default. */
const callToolContent: Check = obj({ content: arrayOf(any) });
/** Before 2026-07-28 structuredContent is an object. */
const structuredObject: Check = obj({ structuredContent: opt(rec(any)) });

/** A 2025-era tool schema: `type: "object"`, `properties` of objects, `required` strings. */
const legacyToolSchema = (withDialect: boolean) =>
  z.looseObject({
    ...(withDialect ? { $schema: z.string().optional() } : {}),
    type: z.literal('object'),
    properties: z.record(z.string(), z.looseObject({})).optional(),
    required: z.array(z.string()).optional(),
  });
/** 2026-07-28 lets any 2020-12 keyword sit beside `type: "object"`, and outputSchema be any object. */
const modernTool = extend(core.ToolSchema, {
  inputSchema: z.looseObject({ $schema: z.string().optional(), type: z.literal('object') }),
  outputSchema: z.looseObject({ $schema: z.string().optional() }).optional(),
});
const legacyTool = (withDialect: boolean) =>
  extend(core.ToolSchema, { inputSchema: legacyToolSchema(withDialect), outputSchema: legacyToolSchema(withDialect).optional() });

const LEGACY_ONLY = [
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/initialized',
  'notifications/roots/list_changed',
];
const TASK_METHODS = ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel', 'notifications/tasks/status'];
const MODERN_ONLY = ['server/discover', 'subscriptions/listen', 'notifications/subscriptions/acknowledged'];
const COMMON = [
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
const COMMON_RESULTS = [
  'CallToolResult',
  'CompleteResult',
  'GetPromptResult',
  'EmptyResult',
  'ListToolsResult',
  'ListPromptsResult',
  'ListResourcesResult',
  'ListResourceTemplatesResult',
  'ReadResourceResult',
  'CreateMessageResult',
  'ListRootsResult',
  'ElicitResult',
];

function knower(methods: string[], results: string[], others: string[]): (type: string) => boolean {
  const types = new Set([...results, ...others]);
  for (const m of methods) {
    const t = REQUEST_TYPE.get(m) ?? NOTIFICATION_TYPE.get(m);
    if (t) types.add(t);
  }
  // Fragments (Tool, TextContent, ClientCapabilities…) are judged in every revision.
  return (type) => types.has(type) || !/(Request|Notification|Result|Error|ErrorResponse)$/.test(type);
}

/** JSON-RPC envelopes of the message types; `bare` types are carried inside other messages. */
function envelopes(bare: string[] = []): Record<string, (value: unknown, out: Problem[]) => void> {
  const out: Record<string, (value: unknown, out: Problem[]) => void> = {};
  for (const type of REQUEST_TYPE.values()) if (!bare.includes(type)) out[type] = overlay(requestEnvelope);
  for (const type of NOTIFICATION_TYPE.values()) out[type] = overlay(notificationEnvelope);
  return out;
}

// ---- 2026-07-28 ----------------------------------------------------------------------------------

const requestMeta = obj({
  'io.modelcontextprotocol/protocolVersion': str,
  'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
  'io.modelcontextprotocol/clientInfo': opt(implementation),
  'io.modelcontextprotocol/logLevel': opt(oneOf('debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency')),
  progressToken: opt(id),
});
const resultMeta = obj({ 'io.modelcontextprotocol/serverInfo': opt(implementation) });

// From 2025-11-25 on, a form's requestedSchema may name its dialect.
const formWithDialect = extend(core.ElicitRequestFormParamsSchema, {
  requestedSchema: extend(core.ElicitRequestFormParamsSchema.shape.requestedSchema, { $schema: z.string().optional() }),
});
// elicitationId went away with 2026-07-28's MRTR (the InputRequests key identifies the ask).
const modernElicitURL = extend(core.ElicitRequestURLParamsSchema, { elicitationId: z.unknown().optional() });
const modernElicitParams = z.union([formWithDialect, modernElicitURL]);
const modernElicit = extend(core.ElicitRequestSchema, { params: modernElicitParams });
const modernSamplingParams = extend(core.CreateMessageRequestParamsSchema, { tools: z.array(modernTool).optional() });
const modernSampling = extend(core.CreateMessageRequestSchema, { params: modernSamplingParams });
const modernSamplingResult = core.CreateMessageResultWithToolsSchema;
const inputRequest = tagged('method', {
  'sampling/createMessage': sdk(modernSampling),
  'roots/list': sdk(core.ListRootsRequestSchema),
  'elicitation/create': sdk(modernElicit),
});
// Answers carry no tag: the official type is a union, and so is this (retries are rare).
const inputResponse = sdk(z.union([modernSamplingResult, core.ListRootsResultSchema, core.ElicitResultSchema]));
const mrtrParams = { inputResponses: opt(rec(inputResponse)), requestState: opt(str) };

const modernParams = (extra: Record<string, Check | ReturnType<typeof opt>> = {}) => obj({ _meta: requestMeta, ...extra });
const modernRequest = (extra: Record<string, Check | ReturnType<typeof opt>> = {}): Check[] => [
  requestEnvelope,
  obj({ params: modernParams(extra) }),
];
const modernResult = obj({ resultType: str, _meta: opt(resultMeta) });
const cacheable: Check[] = [modernResult, obj({ ttlMs: int(0), cacheScope: oneOf('private', 'public') })];
const inputRequiredResult = obj({ resultType: str, _meta: opt(resultMeta), inputRequests: opt(rec(inputRequest)), requestState: opt(str) });

const modern: Gates = {
  knows: knower(
    [...COMMON, ...MODERN_ONLY],
    [...COMMON_RESULTS, 'DiscoverResult', 'SubscriptionsListenResult'],
    ['InputRequiredResult', 'JSONRPCErrorResponse'],
  ),
  extra: {
    // Sampling, roots and elicitation asks travel inside InputRequiredResult, without an envelope.
    ...envelopes(['CreateMessageRequest', 'ListRootsRequest', 'ElicitRequest']),
    CallToolRequest: overlay(...modernRequest(mrtrParams)),
    GetPromptRequest: overlay(...modernRequest(mrtrParams)),
    ReadResourceRequest: overlay(...modernRequest(mrtrParams)),
    CallToolRequestParams: overlay(modernParams(mrtrParams)),
    GetPromptRequestParams: overlay(modernParams(mrtrParams)),
    ReadResourceRequestParams: overlay(modernParams(mrtrParams)),
    CompleteRequest: overlay(...modernRequest()),
    CompleteRequestParams: overlay(modernParams()),
    DiscoverRequest: overlay(...modernRequest()),
    ListToolsRequest: overlay(...modernRequest()),
    ListPromptsRequest: overlay(...modernRequest()),
    ListResourcesRequest: overlay(...modernRequest()),
    ListResourceTemplatesRequest: overlay(...modernRequest()),
    PaginatedRequestParams: overlay(modernParams()),
    SubscriptionsListenRequest: overlay(...modernRequest()),
    CallToolResult: overlay(modernResult, callToolContent),
    CompleteResult: overlay(modernResult),
    GetPromptResult: overlay(modernResult),
    EmptyResult: overlay(modernResult),
    SubscriptionsListenResult: overlay(
      obj({ resultType: str, _meta: all(resultMeta, obj({ 'io.modelcontextprotocol/subscriptionId': id })) }),
    ),
    DiscoverResult: overlay(...cacheable),
    ListToolsResult: overlay(...cacheable),
    ListPromptsResult: overlay(...cacheable),
    ListResourcesResult: overlay(...cacheable),
    ListResourceTemplatesResult: overlay(...cacheable),
    ReadResourceResult: overlay(...cacheable),
    CancelledNotification: overlay(notificationEnvelope, obj({ params: obj({ requestId: id }) })),
    CancelledNotificationParams: overlay(obj({ requestId: id })),
    ...modernErrors(),
    InputRequests: overlay(rec(inputRequest)),
    InputResponses: overlay(rec(inputResponse)),
  },
  replace: {
    JSONRPCErrorResponse: errorResponse,
    EmptyResult: emptyResult,
    InputRequiredResult: asParser(inputRequiredResult),
    InputRequests: z.record(z.string(), z.unknown()),
    InputResponses: z.record(z.string(), z.unknown()),
    Tool: modernTool,
    ListToolsResult: extend(core.ListToolsResultSchema, { tools: z.array(modernTool) }),
    ElicitRequestURLParams: modernElicitURL,
    ElicitRequestFormParams: formWithDialect,
    ElicitRequestParams: modernElicitParams,
    ElicitRequest: modernElicit,
    CreateMessageRequestParams: modernSamplingParams,
    CreateMessageRequest: modernSampling,
    CreateMessageResult: modernSamplingResult,
  },
  inputRequiredFor: new Set(['tools/call', 'prompts/get', 'resources/read']),
  errorType: 'JSONRPCErrorResponse',
  // Tasks left the core capabilities for an extension in 2026-07-28.
  untyped: (_type, path) =>
    /(^|\/)(capabilities|requiredCapabilities|io\.modelcontextprotocol~1clientCapabilities)\/tasks(\/|$)/.test(path) ||
    /^\/tasks(\/|$)/.test(path),
};

/**
 * 2026-07-28 names its error shapes. The plain ones type the `error` object; the three MCP codes
 * type the whole response, with their `data`.
 */
function modernErrors(): Record<string, (value: unknown, out: Problem[]) => void> {
  const plain = (code: number) => overlay(obj({ code: lit(code), message: str }));
  const response = (code: number, data?: Check) =>
    overlay(sdk(errorResponse), obj({ error: obj({ code: lit(code), ...(data ? { data } : {}) }) }));
  return {
    ParseError: plain(-32700),
    InvalidRequestError: plain(-32600),
    MethodNotFoundError: plain(-32601),
    InvalidParamsError: plain(-32602),
    InternalError: plain(-32603),
    HeaderMismatchError: response(-32020),
    MissingRequiredClientCapabilityError: response(-32021, obj({ requiredCapabilities: clientCapabilities })),
    UnsupportedProtocolVersionError: response(-32022, obj({ requested: str, supported: arrayOf(str) })),
  };
}

// ---- 2025-11-25 ----------------------------------------------------------------------------------

const novemberTool = legacyTool(true);
const november: Gates = {
  knows: knower(
    [...COMMON, ...LEGACY_ONLY, ...TASK_METHODS, 'notifications/elicitation/complete'],
    [...COMMON_RESULTS, 'InitializeResult'],
    ['JSONRPCErrorResponse'],
  ),
  extra: { ...envelopes(), CallToolResult: overlay(callToolContent, structuredObject) },
  replace: {
    JSONRPCErrorResponse: errorResponse,
    EmptyResult: emptyResult,
    // Sampling results may carry several blocks from 2025-11-25 on (tool use).
    CreateMessageResult: core.CreateMessageResultWithToolsSchema,
    Tool: novemberTool,
    ListToolsResult: extend(core.ListToolsResultSchema, { tools: z.array(novemberTool) }),
  },
  inputRequiredFor: new Set(),
  errorType: 'JSONRPCErrorResponse',
  // Capability extensions arrived with 2026-07-28.
  untyped: (_type, path) => /^(\/params|\/result)?(\/capabilities)?\/extensions(\/|$)/.test(path),
};

// ---- 2025-06-18 ----------------------------------------------------------------------------------

const juneTool = legacyTool(false);
// Sampling messages carry one text, image or audio block (tool use and arrays came later).
const juneSamplingMessage = extend(core.SamplingMessageSchema, {
  content: z.union([core.TextContentSchema, core.ImageContentSchema, core.AudioContentSchema]),
});
const juneSamplingParams = extend(core.CreateMessageRequestParamsSchema, { messages: z.array(juneSamplingMessage) });
const june: Gates = {
  knows: knower([...COMMON, ...LEGACY_ONLY], [...COMMON_RESULTS, 'InitializeResult'], ['JSONRPCError']),
  extra: {
    CallToolResult: overlay(callToolContent, structuredObject),
    CancelledNotification: overlay(obj({ params: obj({ requestId: id }) })),
    // This revision's error type requires the id (later ones allow it absent for unreadable requests).
    JSONRPCError: overlay(obj({ jsonrpc, id })),
  },
  replace: {
    JSONRPCError: errorResponse,
    EmptyResult: emptyResult,
    Tool: juneTool,
    SamplingMessage: juneSamplingMessage,
    // Elicitation is form-only (URL mode came with 2025-11-25).
    ElicitRequestParams: core.ElicitRequestFormParamsSchema,
    ElicitRequest: extend(core.ElicitRequestSchema, { params: core.ElicitRequestFormParamsSchema }),
    CreateMessageRequestParams: juneSamplingParams,
    CreateMessageRequest: extend(core.CreateMessageRequestSchema, { params: juneSamplingParams }),
    ListToolsResult: extend(core.ListToolsResultSchema, { tools: z.array(juneTool) }),
  },
  inputRequiredFor: new Set(),
  errorType: 'JSONRPCError',
  untyped: (type, path) =>
    (/^\/params\/_meta(\/|$)/.test(path) && !JUNE_TYPED_META.has(type)) ||
    /^(\/params|\/result)?(\/capabilities)?\/(tasks|extensions|elicitation\/|sampling\/)/.test(path) ||
    ((type === 'NumberSchema' || type === 'StringSchema') && path === '/default') ||
    /(^|\/)(execution|icons)(\/|$)/.test(path) ||
    (/^ElicitRequest/.test(type) && /^(\/params)?\/mode$/.test(path)) ||
    (/^CreateMessageRequest/.test(type) && /^(\/params)?\/(tools|toolChoice)(\/|$)/.test(path)),
};
/** 2025-06-18 types `params._meta` only where the request has no other params. */
const JUNE_TYPED_META = new Set([
  'PingRequest',
  'ListRootsRequest',
  'InitializedNotification',
  'PromptListChangedNotification',
  'ResourceListChangedNotification',
  'RootsListChangedNotification',
  'ToolListChangedNotification',
]);

// ---- 2025-03-26 and 2024-11-05 -------------------------------------------------------------------

/** Content blocks before 2025-06-18: no resource links (and, in 2024-11-05, no audio). */
const oldContent = (audio: boolean) =>
  z.union([core.TextContentSchema, core.ImageContentSchema, ...(audio ? [core.AudioContentSchema] : []), core.EmbeddedResourceSchema]);
// 2024-11-05 samples one text or image block.
const originalSamplingMessage = extend(core.SamplingMessageSchema, { content: z.union([core.TextContentSchema, core.ImageContentSchema]) });
const originalSamplingParams = extend(core.CreateMessageRequestParamsSchema, { messages: z.array(originalSamplingMessage) });

/** Members 2025-06-18 added, which the earlier revisions leave untyped (any value passes): `_meta`
 * beyond a result's and the bare one of params, `title` beyond a tool annotation's. */
const untypedBeforeJune = (type: string, path: string): boolean =>
  (/^\/params\/_meta(\/|$)/.test(path) && !JUNE_TYPED_META.has(type)) ||
  (/.\/_meta(\/|$)/.test(path) && !/^\/params\/_meta(\/|$)/.test(path)) ||
  (/(^|\/)title(\/|$)/.test(path) && !/\/annotations\/title$/.test(path)) ||
  /(^|\/)(outputSchema|structuredContent|context|lastModified|icons|execution|websiteUrl)(\/|$)/.test(path) ||
  /^(\/params|\/result)?(\/capabilities)?\/(tasks|extensions|elicitation|sampling\/)/.test(path) ||
  (/^CreateMessageRequest/.test(type) && /^(\/params)?\/(tools|toolChoice)(\/|$)/.test(path));
/** What 2025-03-26 added, untyped in 2024-11-05: tool annotations, the progress message, the completions capability. */
const untypedInOriginal = (type: string, path: string): boolean =>
  ((type === 'Tool' || type === 'ListToolsResult') && /^(\/tools\/\d+)?\/annotations(\/|$)/.test(path)) ||
  (type === 'ProgressNotification' && /^\/params\/message(\/|$)/.test(path)) ||
  /^(\/params|\/result)?(\/capabilities)?\/completions(\/|$)/.test(path);

/** 2025-03-26 (`audio`) and 2024-11-05: 2025-06-18 without elicitation, resource links, structured
 * tool output and titles. */
const beforeJune = (audio: boolean): Gates => ({
  ...june,
  knows: knower(
    [...COMMON.filter((m) => m !== 'elicitation/create'), ...LEGACY_ONLY],
    [...COMMON_RESULTS.filter((r) => r !== 'ElicitResult'), 'InitializeResult'],
    ['JSONRPCError'],
  ),
  extra: { ...june.extra, CallToolResult: overlay(callToolContent) },
  replace: {
    ...june.replace,
    CallToolResult: extend(core.CallToolResultSchema, { content: z.array(oldContent(audio)) }),
    GetPromptResult: extend(core.GetPromptResultSchema, {
      messages: z.array(extend(core.PromptMessageSchema, { content: oldContent(audio) })),
    }),
    ...(audio
      ? {}
      : {
          SamplingMessage: originalSamplingMessage,
          CreateMessageRequestParams: originalSamplingParams,
          CreateMessageRequest: extend(core.CreateMessageRequestSchema, { params: originalSamplingParams }),
          CreateMessageResult: extend(core.CreateMessageResultSchema, {
            content: z.union([core.TextContentSchema, core.ImageContentSchema]),
          }),
        }),
  },
  untyped: audio ? untypedBeforeJune : (type, path) => untypedBeforeJune(type, path) || untypedInOriginal(type, path),
});
const march = beforeJune(true);
const original = beforeJune(false);

export function gatesFor(revision: Revision): Gates {
  switch (revision) {
    case '2026-07-28':
      return modern;
    case '2025-11-25':
      return november;
    case '2025-06-18':
      return june;
    case '2025-03-26':
      return march;
    default:
      return original;
  }
}
