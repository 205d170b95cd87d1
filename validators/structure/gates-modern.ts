/** The 2026-07-28 gate set: `_meta` envelopes on every request, `resultType`, MRTR input requests and answers, discover and subscriptions. */
import * as core from '@modelcontextprotocol/core';
import { z } from 'zod';
import { all, arrayOf, asParser, id, int, lit, obj, oneOf, opt, rec, sdk, str, tagged, type Check, type Problem } from './checks.js';
import {
  extend,
  overlay,
  clientCapabilities,
  implementation,
  requestEnvelope,
  notificationEnvelope,
  errorResponse,
  emptyResult,
  callToolContent,
  modernTool,
  MODERN_ONLY,
  COMMON,
  COMMON_RESULTS,
  knower,
  envelopes,
} from './gate-parts.js';
import type { Gates } from './gates.js';

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
export const cacheable: Check[] = [modernResult, obj({ ttlMs: int(0), cacheScope: oneOf('private', 'public') })];
const inputRequiredResult = obj({ resultType: str, _meta: opt(resultMeta), inputRequests: opt(rec(inputRequest)), requestState: opt(str) });

export const modern: Gates = {
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
