/** The 2025-era gate sets: 2025-11-25, 2025-06-18, and 2025-03-26 with 2024-11-05 (each the later one without what it added). */
import * as core from '@modelcontextprotocol/core';
import { z } from 'zod';
import { id, obj } from './checks.js';
import {
  extend,
  overlay,
  jsonrpc,
  errorResponse,
  emptyResult,
  callToolContent,
  structuredObject,
  legacyTool,
  LEGACY_ONLY,
  TASK_METHODS,
  COMMON,
  COMMON_RESULTS,
  knower,
  envelopes,
} from './gate-parts.js';
import type { Gates } from './gates.js';

const novemberTool = legacyTool(true);
export const november: Gates = {
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
export const june: Gates = {
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
export const march = beforeJune(true);
export const original = beforeJune(false);
