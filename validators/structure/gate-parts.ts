/** The parts the revision gate sets are built from: corrected SDK schemas, envelopes, the message types each era knows. */
import * as core from '@modelcontextprotocol/core';
import { z } from 'zod';
import { allOf, any, arrayOf, described, id, lit, obj, opt, rec, sdk, type Check, type Problem } from './checks.js';
import { NOTIFICATION_TYPE, REQUEST_TYPE } from './sdk.js';

/** `.extend` on an SDK object schema (typed loosely: the SDK's inferred types are not ours to track). */
export const extend = (schema: unknown, shape: Record<string, z.ZodType>): z.ZodObject => (schema as z.ZodObject).extend(shape);

/** Checks run after the SDK schema, as `extra` entries (with their JSON Schema, see checks.ts). */
export const overlay = (...checks: Check[]) =>
  described((value: unknown, out: Problem[]): void => {
    for (const c of checks) c(value, [], out);
  }, allOf(checks));

// ---- shared pieces ------------------------------------------------------------------------------

// clientCapabilities, clientInfo and serverInfo repeat on every message, and ClientCapabilities is
// slow to run (~20 µs): their verdicts are kept by JSON text.
export const clientCapabilities = sdk(core.ClientCapabilitiesSchema, true);
export const implementation = sdk(core.ImplementationSchema, true);
export const jsonrpc = lit('2.0');
export const requestEnvelope = obj({ jsonrpc, id });
export const notificationEnvelope = obj({ jsonrpc });
/** The SDK's error response rejects unknown members; JSON-RPC and every revision allow them. */
export const errorResponse = (core.JSONRPCErrorResponseSchema as unknown as z.ZodObject).loose();
/** The SDK's EmptyResult rejects unknown members; the spec's Result allows them. */
export const emptyResult = (core.EmptyResultSchema as unknown as z.ZodObject).loose();
/** `content` is required on a CallToolResult in every revision; the SDK fills in a default. */
export const callToolContent: Check = obj({ content: arrayOf(any) });
/** Before 2026-07-28 structuredContent is an object. */
export const structuredObject: Check = obj({ structuredContent: opt(rec(any)) });

/** A 2025-era tool schema: `type: "object"`, `properties` of objects, `required` strings. */
const legacyToolSchema = (withDialect: boolean) =>
  z.looseObject({
    ...(withDialect ? { $schema: z.string().optional() } : {}),
    type: z.literal('object'),
    properties: z.record(z.string(), z.looseObject({})).optional(),
    required: z.array(z.string()).optional(),
  });
/** 2026-07-28 lets any 2020-12 keyword sit beside `type: "object"`, and outputSchema be any object. */
export const modernTool = extend(core.ToolSchema, {
  inputSchema: z.looseObject({ $schema: z.string().optional(), type: z.literal('object') }),
  outputSchema: z.looseObject({ $schema: z.string().optional() }).optional(),
});
export const legacyTool = (withDialect: boolean) =>
  extend(core.ToolSchema, { inputSchema: legacyToolSchema(withDialect), outputSchema: legacyToolSchema(withDialect).optional() });

// The method lists have one home, shared with the metrics: lib/mcp-spec.ts.
export { COMMON, LEGACY_ONLY, MODERN_ONLY, TASK_METHODS } from '../../lib/mcp-spec.js';
export const COMMON_RESULTS = [
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

export function knower(methods: string[], results: string[], others: string[]): (type: string) => boolean {
  const types = new Set([...results, ...others]);
  for (const m of methods) {
    const t = REQUEST_TYPE.get(m) ?? NOTIFICATION_TYPE.get(m);
    if (t) types.add(t);
  }
  // Fragments (Tool, TextContent, ClientCapabilities…) are judged in every revision.
  return (type) => types.has(type) || !/(Request|Notification|Result|Error|ErrorResponse)$/.test(type);
}

/** JSON-RPC envelopes of the message types; `bare` types are carried inside other messages. */
export function envelopes(bare: string[] = []): Record<string, (value: unknown, out: Problem[]) => void> {
  const out: Record<string, (value: unknown, out: Problem[]) => void> = {};
  for (const type of REQUEST_TYPE.values()) if (!bare.includes(type)) out[type] = overlay(requestEnvelope);
  for (const type of NOTIFICATION_TYPE.values()) out[type] = overlay(notificationEnvelope);
  return out;
}

// ---- 2026-07-28 ----------------------------------------------------------------------------------
