/**
 * Argument mutations: a recorded `tools/call` (and `prompts/get`, `completion/complete`,
 * `resources/read`) re-sent with one argument changed at a time, so a finding names the property
 * that caused it; then random combinations of two or three changes. Values come from the tool's
 * recorded `inputSchema` (schema-values.ts), and `invalidArguments` is ajv's verdict on the
 * arguments actually sent. A tool listed by a recorded tools/list but never called gets a call
 * built from its schema (required properties only), so it is fuzzed too.
 */
import { isObject } from '../../lib/plain-object.js';
import { type Plan, type RecordedCall, callsOf, paramsOf } from '../probes/plan.js';
import { args } from '../probes/support.js';
import {
  type CaseFactory,
  type Era,
  type GenerateOptions,
  argumentsBreak,
  envelope,
  erasOf,
  firstOfEach,
  isRetry,
  resend,
} from './case-kit.js';
import type { Random } from './random.js';
import { toStep } from './raw-json.js';
import { type SchemaValue, type ValueOptions, randomValue, resolveRef, schemaValues } from './schema-values.js';
import type { FuzzCase, Json } from './types.js';

/** One place an argument value goes: a tool or prompt argument, a completion value, a URI. */
interface Slot {
  /** For the case id and the change line (`text`, `argument.value`, `uri`). */
  name: string;
  schema: Json;
  set(params: Json, value: unknown): void;
}

/** A recorded request whose arguments the generators mutate. */
export interface ArgumentSubject {
  era: Era;
  /** The request to start from (recorded, or built from tools/list when `synthesized`). */
  request: Json;
  /** `echo`, `prompt:greet`, `completion:greet`, `resources/read`: the subject in case ids. */
  name: string;
  /** The tool of a tools/call. */
  tool?: string;
  /** The tool's recorded inputSchema: what `invalidArguments` is judged against. */
  inputSchema?: Json;
  synthesized: boolean;
  slots: Slot[];
  /** Required properties (tools) or recorded argument names (prompts) a case may remove. */
  removable: string[];
  /** Whether an unknown extra property is worth sending (additionalProperties false or unset). */
  extraProperty: boolean;
}

const EXTRA = 'mcp-cassette-fuzz-extra';
const STRING: Json = { type: 'string' };

function argumentSlot(name: string, schema: Json): Slot {
  return {
    name,
    schema,
    set(params, value) {
      params.arguments = { ...(isObject(params.arguments) ? params.arguments : {}), [name]: value };
    },
  };
}

function toolSubject(plan: Plan, era: Era, request: Json, synthesized: boolean): ArgumentSubject {
  const name = String(paramsOf(request).name);
  const tool = plan.tools.get(name);
  const schema = isObject(tool?.inputSchema) ? tool.inputSchema : undefined;
  const props = isObject(schema?.properties) ? schema.properties : {};
  const names = [...Object.keys(props), ...Object.keys(args(request)).filter((k) => !(k in props))];
  return {
    era,
    request,
    name,
    tool: name,
    ...(schema ? { inputSchema: schema } : {}),
    synthesized,
    slots: names.map((n) => {
      const s = resolveRef(props[n], schema);
      return argumentSlot(n, isObject(s) ? s : {});
    }),
    removable: Array.isArray(schema?.required) ? schema.required.map(String) : [],
    extraProperty: schema?.additionalProperties === undefined || schema.additionalProperties === false,
  };
}

function otherSubject(era: Era, request: Json): ArgumentSubject | undefined {
  const p = paramsOf(request);
  const method = String(request.method);
  if (method === 'prompts/get' && typeof p.name === 'string') {
    const recorded = Object.keys(args(request));
    // Prompt arguments are a map of strings (PromptArgument): every slot is a string.
    return {
      era,
      request,
      name: `prompt:${p.name}`,
      synthesized: false,
      slots: recorded.map((n) => argumentSlot(n, STRING)),
      removable: recorded,
      extraProperty: true,
    };
  }
  if (method === 'completion/complete' && isObject(p.argument) && isObject(p.ref)) {
    const ref = typeof p.ref.name === 'string' ? p.ref.name : String(p.ref.uri);
    const slot: Slot = {
      name: 'argument.value',
      schema: STRING,
      set(params, value) {
        params.argument = { ...(isObject(params.argument) ? params.argument : {}), value };
      },
    };
    return { era, request, name: `completion:${ref}`, synthesized: false, slots: [slot], removable: [], extraProperty: false };
  }
  if (method === 'resources/read' && typeof p.uri === 'string') {
    const slot: Slot = { name: 'uri', schema: STRING, set: (params, value) => (params.uri = value) };
    return { era, request, name: 'resources/read', synthesized: false, slots: [slot], removable: [], extraProperty: false };
  }
  return undefined;
}

/** A simple value the schema accepts, for a call built from tools/list: the default, the first
 * enum value, or the plainest value of its type within its bounds. */
function plainValue(schema: unknown): unknown {
  if (!isObject(schema)) return 'mcp-cassette-fuzz';
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (type === 'integer' || type === 'number') return Math.min(Math.max(1, Math.ceil(min ?? 1)), Math.floor(max ?? 1));
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  if (type === 'object') return {};
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  return 'mcp-cassette-fuzz'.padEnd(minLength, 'x');
}

function synthesizedCall(plan: Plan, era: Era, name: string, tool: Json): Json {
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
  const props = isObject(schema.properties) ? schema.properties : {};
  const a: Json = {};
  for (const r of Array.isArray(schema.required) ? schema.required.map(String) : []) a[r] = plainValue(resolveRef(props[r], schema));
  const meta = envelope(plan, era);
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: a, ...(meta ? { _meta: meta } : {}) } };
}

/** Every request of the plan whose arguments can be mutated: the first recorded call of each tool,
 * prompt, completion and resource read per era, and a built call for each listed tool that was
 * never called in an era that listed tools. Not filtered by safety (cases.ts does that). */
export function argumentSubjects(plan: Plan): ArgumentSubject[] {
  const out: ArgumentSubject[] = [];
  const wanted = new Set(['tools/call', 'prompts/get', 'completion/complete', 'resources/read']);
  for (const era of erasOf(plan)) {
    const calls = firstOfEach(plan, era, (c: RecordedCall) => wanted.has(String(c.request.method)) && !isRetry(c.request));
    for (const c of calls) {
      const s = c.request.method === 'tools/call' ? toolSubject(plan, era, c.request, false) : otherSubject(era, c.request);
      if (s) out.push(s);
    }
    if (!callsOf(plan, era).some((c) => c.request.method === 'tools/list')) continue;
    const called = new Set(calls.filter((c) => c.request.method === 'tools/call').map((c) => String(paramsOf(c.request).name)));
    for (const [name, tool] of plan.tools)
      if (!called.has(name)) out.push(toolSubject(plan, era, synthesizedCall(plan, era, name, tool), true));
  }
  return out;
}

interface Change {
  mutation: string;
  /** `text=huge-string`, `-text`, `+extra`: the id's subject and the change line. */
  what: string;
  apply(params: Json): void;
}

function valueChange(slot: Slot, v: SchemaValue): Change {
  return { mutation: v.mutation, what: `${slot.name}=${v.label}`, apply: (p) => slot.set(p, v.value) };
}

function removal(name: string, required: boolean): Change {
  return {
    mutation: required ? 'missing-required' : 'missing-argument',
    what: `-${name}`,
    apply(p) {
      const a: Json = { ...(isObject(p.arguments) ? p.arguments : {}) };
      delete a[name];
      p.arguments = a;
    },
  };
}

const extra: Change = {
  mutation: 'extra-property',
  what: `+${EXTRA}`,
  apply(p) {
    p.arguments = { ...(isObject(p.arguments) ? p.arguments : {}), [EXTRA]: 'mcp-cassette-fuzz' };
  },
};

/** The `arguments` member itself: not an object, or left out. */
const ARGUMENTS_WRONG: readonly Change[] = [
  { mutation: 'wrong-type', what: 'arguments=array', apply: (p) => (p.arguments = ['mcp-cassette-fuzz']) },
  { mutation: 'wrong-type', what: 'arguments=string', apply: (p) => (p.arguments = 'mcp-cassette-fuzz') },
  { mutation: 'null', what: 'arguments=null', apply: (p) => (p.arguments = null) },
  {
    mutation: 'missing-arguments',
    what: '-arguments',
    apply: (p) => {
      delete p.arguments;
    },
  },
];

function recordedWhat(subject: ArgumentSubject): string {
  return subject.synthesized
    ? `a tools/call of \`${subject.name}\` built from the recorded tools/list`
    : `the recorded ${String(subject.request.method)}${subject.tool ? ` of \`${subject.tool}\`` : ''}`;
}

function buildCase(subject: ArgumentSubject, id: string, mutation: string, changes: Change[]): FuzzCase {
  const message = resend(subject.request, 1, (p) => {
    for (const c of changes) c.apply(p);
  });
  const bad = subject.tool ? argumentsBreak(subject.inputSchema, paramsOf(message)) : undefined;
  const c: FuzzCase = {
    id,
    family: 'arguments',
    mutation,
    change: `${changes.map((x) => x.what).join(', ')} in ${recordedWhat(subject)} (${subject.era === 'modern' ? '2026-07-28' : '2025'})`,
    era: subject.era,
    steps: [toStep(message)],
  };
  if (subject.tool) c.tool = subject.tool;
  if (bad !== undefined) c.invalidArguments = bad;
  return c;
}

/** Sizes from the options; no verdict per value, since buildCase judges the whole arguments
 * sent against the whole inputSchema (what a value means can depend on its siblings). */
function valueOptions(options: GenerateOptions): ValueOptions {
  return {
    ...(options.hugeStringBytes !== undefined ? { hugeStringBytes: options.hugeStringBytes } : {}),
    ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
    validate: () => undefined,
  };
}

/** `arguments/<mutation>/<subject>.<what>@<era>`. */
function caseId(subject: ArgumentSubject, mutation: string, what: string): string {
  return `arguments/${mutation}/${subject.name}.${what}@${subject.era}`;
}

/** The systematic pass for one subject: each value of each slot once, each removable argument
 * removed, an extra property, and `arguments` of the wrong type. */
export function argumentCases(subject: ArgumentSubject, options: GenerateOptions): CaseFactory[] {
  const changes: Change[] = subject.slots.flatMap((slot) =>
    schemaValues(slot.schema, valueOptions(options)).map((v) => valueChange(slot, v)),
  );
  changes.push(...subject.removable.map((r) => removal(r, subject.tool !== undefined)));
  if (subject.extraProperty) changes.push(extra);
  if (subject.tool || subject.name.startsWith('prompt:')) changes.push(...ARGUMENTS_WRONG);
  return changes.map((ch) => () => buildCase(subject, caseId(subject, ch.mutation, ch.what), ch.mutation, [ch]));
}

/** A random combination for the endless stream: two or three changes to distinct slots (random
 * values, or a removal or extra property when the subject has too few slots). `n` makes the id
 * unique. */
export function randomArgumentCase(subject: ArgumentSubject, random: Random, options: GenerateOptions, n: number): FuzzCase {
  const want = 2 + random.int(2);
  const slots = random.shuffle(subject.slots).slice(0, want);
  const changes: Change[] = slots.map((slot) => valueChange(slot, randomValue(slot.schema, random, valueOptions(options))));
  const spare = [
    ...subject.removable.filter((r) => !slots.some((s) => s.name === r)).map((r) => removal(r, subject.tool !== undefined)),
    ...(subject.extraProperty ? [extra] : []),
  ];
  while (changes.length < want && spare.length) changes.push(spare.splice(random.int(spare.length), 1)[0]!);
  // Nothing to change inside the arguments: change `arguments` itself.
  if (!changes.length) changes.push(random.pick(ARGUMENTS_WRONG));
  return buildCase(subject, `arguments/combination/${subject.name}@${subject.era}#${n}`, 'combination', changes);
}
