/**
 * The tools of the seeded-defect server test/servers/fuzz-target.ts (issue 34: the proof of
 * `mcp-cassette fuzz`). Each tool is correct (a valid call gets its result, invalid arguments an
 * `isError: true` result) but for ONE seeded defect, set off by one class of value in one
 * argument, whatever the other arguments are (DEFECTS says which). The fuzzer must find each one
 * from a cassette of valid calls, and a finding's replay must pass once the defect is fixed
 * (`--fixed`, `--fix <n|name>`).
 *
 * Answers hold no time, randomness or process state, so a replay compares clean. No answer
 * echoes a nested argument value, and nothing walks one recursively: a fuzzer's deep nesting
 * reaches only the (iterative) depth measure.
 */

type Json = Record<string, unknown>;

/**
 * The defects, by number (as in issue 34's brief), name, tool and argument. `rule`: what
 * `mcp-cassette validate` reports (at `severity`) for a recorded session that sets the defect off (either era,
 * stdio; pinned by fuzz-target-seed.test.ts); the others are seen by the process, not the traffic
 * (an exit, a silence, stderr).
 */
export const DEFECTS = [
  {
    n: 1,
    name: 'crash',
    tool: 'echo',
    argument: 'text',
    trigger: 'a string that holds U+202E (RIGHT-TO-LEFT OVERRIDE)',
    effect: "a RangeError left uncaught (Node's own report on stderr), exit code 3, no answer",
  },
  {
    n: 2,
    name: 'hang',
    tool: 'parity',
    argument: 'n',
    trigger: 'an integer that is not a safe integer (|n| > 2^53 - 1; the request text carries e.g. 9007199254740993)',
    effect: 'that request is never answered; the process lives on and answers the others',
  },
  {
    n: 3,
    name: 'error-misuse',
    tool: 'convert_temperature',
    argument: 'to',
    trigger: 'a string outside its enum ["fahrenheit", "kelvin"] (the empty string too)',
    effect: 'JSON-RPC error -32603 "Internal error" where an isError result is due',
    rule: 'TOOLS-ERR-EXECUTION',
    severity: 'warning',
  },
  {
    n: 4,
    name: 'stderr-panic',
    tool: 'inspect_json',
    argument: 'document',
    trigger: 'an object nested deeper than 64 levels (objects and arrays each count a level; `{}` is 1)',
    effect: 'a Go-style `panic: runtime error: ...` with `goroutine 1 [running]:` on stderr, then the normal answer',
  },
  {
    n: 5,
    name: 'stdout-noise',
    tool: 'greet',
    argument: 'name',
    trigger: 'the empty string',
    effect: 'stdio: a plain (non-JSON) log line on stdout before the answer; over HTTP nothing',
    rule: 'STDIO-STDOUT-CLEAN',
    severity: 'error',
  },
  {
    n: 6,
    name: 'result-shape',
    tool: 'word_count',
    argument: 'text',
    trigger: 'a string longer than 64 KiB (more than 65,536 bytes of UTF-8)',
    effect: 'a tools/call result without `content` (its count under `summary`), which breaks CallToolResult',
    rule: 'TOOLS-CALL-SHAPE',
    severity: 'error',
  },
  {
    n: 7,
    name: 'side-effect',
    tool: 'delete_everything',
    argument: undefined,
    trigger: 'any call (the only tool without readOnlyHint: a fuzzer calls it only with --allow-side-effects)',
    effect: 'an Error left uncaught, exit code 4, no answer; `--fixed` leaves it armed, only `--fix 7` disarms it',
  },
] as const;

export type Defect = (typeof DEFECTS)[number];
export type DefectName = Defect['name'];

/** What the server was told to fix: numbers of DEFECTS. */
export type Fixes = ReadonlySet<number>;

/**
 * `--fixed` fixes defects 1-6 and leaves the side-effect trap (7) armed, so a fuzz run against a
 * fixed build still proves that the fuzzer left `delete_everything` alone; `--fix <n|name|tool>`
 * fixes one more (7 included).
 */
export function fixesOf(fixed: boolean, fix: readonly string[]): Fixes {
  const out = new Set<number>(fixed ? [1, 2, 3, 4, 5, 6] : []);
  for (const f of fix) {
    const d = DEFECTS.find((x) => String(x.n) === f || x.name === f || x.tool === f);
    if (!d) throw new Error(`fuzz-target: unknown defect ${f}; one of ${DEFECTS.map((x) => `${x.n}|${x.name}|${x.tool}`).join(', ')}`);
    out.add(d.n);
  }
  return out;
}

/** What a call came to: a CallToolResult (without the era's envelope), a JSON-RPC error, or no
 * answer ever. */
export type Outcome = { result: Json } | { error: { code: number; message: string } } | { hang: true };

/** What a tool may do besides answering: write to stdout (only on stdio) and stderr. */
export interface ToolIo {
  stdio: boolean;
  stdout(text: string): void;
  stderr(text: string): void;
}

interface Prop {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'object';
  description: string;
  enum?: readonly string[];
}

interface ToolDef {
  name: string;
  description: string;
  properties: Record<string, Prop>;
  required: readonly string[];
  readOnly: boolean;
  /** The seeded defect (its number): `seeded` checks it before the arguments are validated. */
  defect: number;
  /** The correct tool, given valid arguments. */
  run(args: Json): Outcome;
}

const text = (t: string): Outcome => ({ result: { content: [{ type: 'text', text: t }] } });
const failure = (t: string): Outcome => ({ result: { content: [{ type: 'text', text: t }], isError: true } });
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** How a value looks in a message: strings and keys cut short, so no answer grows with a fuzzed value. */
const short = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** Nesting depth of a JSON value (a scalar 0, `{}` and `[]` 1), walked with a stack of its own. */
export function depthOf(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    for (const child of Object.values(v as object)) if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
  }
  return max;
}

const TEMPERATURE_UNITS = ['fahrenheit', 'kelvin'] as const;
const MAX_DEPTH = 64;
const MAX_TEXT_BYTES = 64 * 1024;

/** The exit code of a seeded crash, rewritten from Node's 1 for an uncaught exception
 * (installCrashExit); undefined while no seeded crash is under way. */
let seededExit: number | undefined;

/** Makes the process exit with the seeded crash's code instead of Node's 1, after Node printed
 * the uncaught exception its own way. A crash that is no seeded one keeps its 1. */
export function installCrashExit(): void {
  process.on('exit', (code) => {
    if (code === 1 && seededExit !== undefined) process.exitCode = seededExit;
  });
}

/**
 * Crashes the process: `make`'s error is thrown out of the handler, uncaught, and Node reports it
 * its own way before the process exits `code`. Its stack is cut to three frames, so the report
 * fits a reader that keeps only the last lines of stderr (as lib/raw-client/stdio.ts does).
 */
function crash(make: () => Error, code: number): never {
  seededExit = code;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 3;
  const err = make();
  Error.stackTraceLimit = limit;
  throw err;
}

/** A Go runtime's report of a panic, word for word the way one looks (fixed addresses: the
 * report is the same every time). */
const GO_PANIC = [
  'panic: runtime error: index out of range [64] with length 64',
  '',
  'goroutine 1 [running]:',
  'main.(*inspector).walk(0xc000010000, {0x4b6f20, 0xc00001c030}, 0x40)',
  '\t/src/fuzz-target/inspect.go:42 +0x1d5',
  'main.(*inspector).walk(0xc000010000, {0x4b6f20, 0xc00001c018}, 0x3f)',
  '\t/src/fuzz-target/inspect.go:48 +0x12e',
  'main.main()',
  '\t/src/fuzz-target/main.go:17 +0x65',
  '',
].join('\n');

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

function countWords(t: string): string {
  return `${plural(t.split(/\s+/).filter(Boolean).length, 'word')}, ${[...t].length} characters`;
}

/** A read-only tool (readOnlyHint) that requires every argument it has. */
function readOnly(name: string, description: string, properties: Record<string, Prop>, defect: number, run: ToolDef['run']): ToolDef {
  return { name, description, properties, required: Object.keys(properties), readOnly: true, defect, run };
}

const TOOLS: readonly ToolDef[] = [
  readOnly('echo', 'Returns the text it is given', { text: { type: 'string', description: 'The text to return' } }, 1, (args) =>
    text(args.text as string),
  ),
  readOnly('parity', 'Says whether an integer is even or odd', { n: { type: 'integer', description: 'The integer' } }, 2, (args) => {
    const n = args.n as number;
    // Fixed: an integer JSON carries but a double cannot hold exactly is an invalid argument.
    if (!Number.isSafeInteger(n)) return failure('Invalid arguments for parity: n is past 2^53 - 1, where a double loses its parity');
    return text(`${n} is ${n % 2 === 0 ? 'even' : 'odd'}`);
  }),
  readOnly(
    'convert_temperature',
    'Converts a temperature from degrees Celsius',
    {
      celsius: { type: 'number', description: 'Degrees Celsius' },
      to: { type: 'string', enum: TEMPERATURE_UNITS, description: 'The unit to convert to' },
    },
    3,
    (args) => {
      const c = args.celsius as number;
      const round = (x: number): number => Math.round(x * 100) / 100;
      return args.to === 'kelvin' ? text(`${c} °C is ${round(c + 273.15)} K`) : text(`${c} °C is ${round((c * 9) / 5 + 32)} °F`);
    },
  ),
  readOnly(
    'inspect_json',
    'Describes a JSON object: how many keys it has and how deep it nests',
    { document: { type: 'object', description: 'Any JSON object' } },
    4,
    (args) => {
      const doc = args.document as Json;
      return text(`an object with ${plural(Object.keys(doc).length, 'key')}, nested ${plural(depthOf(doc), 'level')} deep`);
    },
  ),
  readOnly('greet', 'Greets someone by name', { name: { type: 'string', description: 'Who to greet (empty: a stranger)' } }, 5, (args) =>
    text(`Hello, ${args.name === '' ? 'stranger' : String(args.name)}!`),
  ),
  readOnly(
    'word_count',
    'Counts the words and characters of a text',
    { text: { type: 'string', description: 'The text to count' } },
    6,
    (args) => text(countWords(args.text as string)),
  ),
  {
    name: 'delete_everything',
    description: 'Deletes every record the server holds (destructive: never call it in a test)',
    properties: { confirm: { type: 'boolean', description: 'Must be true' } },
    required: [],
    readOnly: false,
    defect: 7,
    run: () => text('nothing was deleted: fuzz-target holds no records'),
  },
];

/** The seeded defect's effect when the named argument sets it off before validation; returns an
 * outcome that replaces the tool's, or undefined to go on. */
function seeded(tool: ToolDef, args: Json, fixes: Fixes, io: ToolIo): Outcome | undefined {
  if (fixes.has(tool.defect)) return undefined;
  switch (tool.defect) {
    case 1:
      return typeof args.text === 'string' && args.text.includes('\u202e')
        ? crash(() => new RangeError('echo: cannot lay out text with a right-to-left override (U+202E)'), 3)
        : undefined;
    case 2:
      return typeof args.n === 'number' && Number.isInteger(args.n) && !Number.isSafeInteger(args.n) ? { hang: true } : undefined;
    case 3:
      return typeof args.to === 'string' && !(TEMPERATURE_UNITS as readonly string[]).includes(args.to)
        ? { error: { code: -32603, message: 'Internal error' } }
        : undefined;
    case 4:
      if (isObj(args.document) && depthOf(args.document) > MAX_DEPTH) io.stderr(GO_PANIC);
      return undefined;
    case 5:
      if (args.name === '' && io.stdio) io.stdout('greet: empty name, greeting a stranger\n');
      return undefined;
    case 6:
      // The count without its content array: no longer a CallToolResult.
      return typeof args.text === 'string' && Buffer.byteLength(args.text, 'utf8') > MAX_TEXT_BYTES
        ? { result: { summary: countWords(args.text) } }
        : undefined;
    case 7:
      return crash(() => new Error('delete_everything: a destructive tool was called (fuzz-target stops here)'), 4);
    default:
      return undefined;
  }
}

/** Why `args` do not fit the tool's inputSchema, or undefined when they do. */
function invalid(tool: ToolDef, args: Json): string | undefined {
  for (const k of tool.required) if (!(k in args)) return `missing required argument ${short(k)}`;
  for (const [k, v] of Object.entries(args)) {
    const p = tool.properties[k];
    if (!p) return `unexpected argument ${short(k)}`;
    const fits =
      p.type === 'string'
        ? typeof v === 'string'
        : p.type === 'integer'
          ? Number.isInteger(v)
          : p.type === 'number'
            ? typeof v === 'number'
            : p.type === 'boolean'
              ? typeof v === 'boolean'
              : isObj(v);
    if (!fits) return `argument ${short(k)} must be ${p.type === 'integer' ? 'an' : 'a'} ${p.type}`;
    if (p.enum && !p.enum.includes(v as string)) return `argument ${short(k)} must be one of ${p.enum.join(', ')}`;
  }
  return undefined;
}

/** tools/list's tools: JSON Schema 2020-12 input schemas, readOnlyHint on all but delete_everything. */
export function listTools(): Json[] {
  return TOOLS.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: { type: 'object', properties: t.properties, required: [...t.required], additionalProperties: false },
    annotations: t.readOnly ? { readOnlyHint: true } : { destructiveHint: true },
  }));
}

export const isTool = (name: string): boolean => TOOLS.some((t) => t.name === name);

/** Calls a listed tool (isTool): the seeded defect first, then validation, then the tool. */
export function callTool(name: string, args: Json, fixes: Fixes, io: ToolIo): Outcome {
  const tool = TOOLS.find((t) => t.name === name)!;
  const defect = seeded(tool, args, fixes, io);
  if (defect) return defect;
  const problem = invalid(tool, args);
  if (problem) return failure(`Invalid arguments for ${tool.name}: ${problem}`);
  return tool.run(args);
}
