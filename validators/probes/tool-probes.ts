/** Tool error-handling probes (RULES.md §5): an unknown tool, and recorded arguments mutated to
 * violate the tool's inputSchema. */
import { isObject } from '../rule.js';
import { result } from './catalogue.js';
import { callsOf, paramsOf, primaryEra, type Json } from './plan.js';
import { args, errorOf, gate, notApplicable, once, recordedMeta, resultOf, short, transportTrouble } from './support.js';
import { withParams } from './target.js';
import type { Probe } from './types.js';

export const UNKNOWN_TOOL = 'mcp-cassette-probe-no-such-tool';

export const unknownTool: Probe = {
  id: 'unknown-tool',
  title: 'tools/call of a tool the server does not have',
  rules: ['TOOLS-ERR-PROTOCOL'],
  async run(ctx) {
    const era = primaryEra(ctx.plan);
    const hasTools =
      ctx.plan.tools.size > 0 || callsOf(ctx.plan, era ?? 'modern').some((c) => String(c.request.method).startsWith('tools/'));
    if (!era || !hasTools) return notApplicable(this.id, this.rules, 'no tools/list or tools/call in the recorded traffic');
    const meta = era === 'modern' ? recordedMeta(ctx.plan) : undefined;
    const msg: Json = {
      jsonrpc: '2.0',
      id: 'x',
      method: 'tools/call',
      params: { name: UNKNOWN_TOOL, arguments: {}, ...(meta ? { _meta: meta } : {}) },
    };
    const ex = await once(ctx, era, msg, this.id, this.rules);
    if (Array.isArray(ex)) return ex;
    const trouble = transportTrouble(ctx, ex, this.id, this.rules);
    if (trouble) return trouble;
    const io = { sent: ex.sent, received: ctx.target.describe(ex) };
    const e = errorOf(ex);
    if (e) return [result(this.id, 'TOOLS-ERR-PROTOCOL', 'pass', `JSON-RPC error ${String(e.code)}`, io)];
    const r = resultOf(ex);
    return [
      result(
        this.id,
        'TOOLS-ERR-PROTOCOL',
        'fail',
        r?.isError === true
          ? 'an isError result; an unknown tool is a protocol error (JSON-RPC error, the spec example uses -32602)'
          : 'the call of an unknown tool succeeded',
        io,
      ),
    ];
  },
};

/** A value of the wrong type for a JSON Schema property, or undefined when the schema has none. */
function wrongValue(schema: unknown): unknown {
  if (!isObject(schema)) return undefined;
  const t = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (t.includes('string')) return t.includes('number') || t.includes('integer') ? { 'mcp-cassette-probe': true } : 12345;
  if (t.includes('number') || t.includes('integer') || t.includes('boolean') || t.includes('object') || t.includes('array'))
    return 'mcp-cassette-probe-wrong-type';
  return undefined;
}

/** Recorded arguments changed to violate the schema: a property of the wrong type, or a
 * required property removed. */
export function invalidArguments(schema: unknown, recorded: Json): { args: Json; change: string } | undefined {
  if (!isObject(schema) || !isObject(schema.properties)) return undefined;
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  const names = [...required, ...Object.keys(schema.properties).filter((n) => !required.includes(n))];
  for (const n of names) {
    const v = wrongValue(schema.properties[n]);
    if (v !== undefined)
      return {
        args: { ...recorded, [n]: v },
        change: `argument \`${n}\` set to ${JSON.stringify(v)}, which its schema type does not allow`,
      };
  }
  const r = required[0];
  if (r !== undefined) {
    const out = { ...recorded };
    delete out[r];
    return { args: out, change: `required argument \`${r}\` removed` };
  }
  return undefined;
}

export const invalidArgumentsProbe: Probe = {
  id: 'invalid-arguments',
  title: 'A recorded tools/call with arguments mutated to violate inputSchema',
  rules: ['TOOLS-ERR-EXECUTION', 'TOOLS-VALIDATE-INPUTS'],
  async run(ctx) {
    const era = primaryEra(ctx.plan);
    if (!era) return notApplicable(this.id, this.rules, 'no recorded requests');
    const candidates = callsOf(ctx.plan, era).filter(
      (c) =>
        c.request.method === 'tools/call' &&
        isObject(c.response?.result) &&
        c.response.result.resultType !== 'input_required' &&
        !('inputResponses' in paramsOf(c.request)),
    );
    const withSchema = candidates
      .map((c) => ({ c, m: invalidArguments(ctx.plan.tools.get(String(paramsOf(c.request).name))?.inputSchema, args(c.request)) }))
      .filter((x) => x.m);
    if (!withSchema.length)
      return notApplicable(
        this.id,
        this.rules,
        candidates.length
          ? 'no recorded tools/call of a tool whose inputSchema (from a recorded tools/list) has typed or required properties'
          : 'no recorded tools/call that completed',
      );
    // Prefer a call that is safe to re-send.
    const pick = withSchema.find((x) => !gate(ctx, x.c, this.id, this.rules)) ?? withSchema[0]!;
    const skipped = gate(ctx, pick.c, this.id, this.rules);
    if (skipped) return skipped;
    const msg = withParams(pick.c.request, 'x', (p) => (p.arguments = pick.m!.args));
    const ex = await once(ctx, era, msg, this.id, this.rules);
    if (Array.isArray(ex)) return ex;
    const trouble = transportTrouble(ctx, ex, this.id, this.rules);
    if (trouble) return trouble;
    const io = { sent: ex.sent, received: ctx.target.describe(ex) };
    const tool = String(paramsOf(pick.c.request).name);
    const e = errorOf(ex);
    const r = resultOf(ex);
    if (e) {
      return [
        result(
          this.id,
          'TOOLS-ERR-EXECUTION',
          'fail',
          `${pick.m!.change}: JSON-RPC error ${String(e.code)} instead of an isError result (conflict C3 in the catalogue: the schema doc allows -32602, so this is a warning)`,
          io,
        ),
        result(this.id, 'TOOLS-VALIDATE-INPUTS', 'pass', `${tool} refused the invalid arguments (${pick.m!.change})`, io),
      ];
    }
    if (r?.resultType === 'input_required')
      return ['TOOLS-ERR-EXECUTION', 'TOOLS-VALIDATE-INPUTS'].map((rule) =>
        result(this.id, rule, 'inconclusive', 'the server asked for input instead of judging the arguments', io),
      );
    if (r?.isError === true) {
      return [
        result(this.id, 'TOOLS-ERR-EXECUTION', 'pass', `an isError result (${pick.m!.change})`, io),
        result(this.id, 'TOOLS-VALIDATE-INPUTS', 'pass', `${tool} refused the invalid arguments`, io),
      ];
    }
    return [
      result(this.id, 'TOOLS-ERR-EXECUTION', 'fail', `${pick.m!.change}: the call succeeded; expected an isError result`, io),
      result(
        this.id,
        'TOOLS-VALIDATE-INPUTS',
        'fail',
        `${pick.m!.change}: ${tool} succeeded silently with arguments its inputSchema forbids: ${short(r?.content)}`,
        io,
      ),
    ];
  },
};
