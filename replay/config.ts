/**
 * `mcp-cassette.config.json`: project-wide replay settings, with per-cassette overrides. Checked
 * with ajv against REPLAY_CONFIG_SCHEMA; a bad file stops the run with MCPC_CONFIG_INVALID naming
 * the path inside it.
 *
 * {
 *   "replay": {
 *     "ignore": ["/result/content/0/text", "tools/call get_env /result/content/*\/text",
 *                { "method": "tools/call", "name": "get_env", "paths": ["/result/structuredContent/env"] }],
 *     "timeoutMs": 5000,
 *     "content": "fail",
 *     "cassettes": { "cassettes/weather*.cassette.json": { "ignore": ["**\/forecastId"] } }
 *   }
 * }
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { Ajv } from 'ajv';
import { CassetteError } from '../lib/errors.js';
import { compileIgnores, ignoreProblem, IGNORE_FORMS, type IgnorePattern, type IgnoreRule } from './normalise.js';
import { pointerToken } from '../lib/json-pointer.js';

export const CONFIG_FILE = 'mcp-cassette.config.json';

export interface ReplaySettings {
  /** Strings in the `--ignore` grammar (normalise.ts), or scoped rules in object form. */
  ignore?: Array<string | IgnoreRule>;
  timeoutMs?: number;
  /** What a changed output (`output-changed`: text or values changed, the contract intact) does:
   * `fail` (the default: exit 1, as a regression test should) or `warn` (a warning). */
  content?: ContentPolicy;
}

export type ContentPolicy = 'fail' | 'warn';

export interface ReplayConfig {
  /** Where the file was read from; cassette globs are relative to its folder. */
  path: string;
  replay: ReplaySettings & { cassettes?: Record<string, ReplaySettings> };
}

const settings = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ignore: {
      type: 'array',
      items: {
        anyOf: [
          { type: 'string', minLength: 1 },
          {
            type: 'object',
            additionalProperties: false,
            required: ['method', 'paths'],
            properties: {
              method: { type: 'string', minLength: 1 },
              name: { type: 'string', minLength: 1 },
              paths: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
            },
          },
        ],
      },
    },
    timeoutMs: { type: 'integer', minimum: 1 },
    content: { enum: ['fail', 'warn'] },
  },
} as const;

export const REPLAY_CONFIG_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    $schema: { type: 'string' },
    replay: {
      type: 'object',
      additionalProperties: false,
      properties: { ...settings.properties, cassettes: { type: 'object', additionalProperties: settings } },
    },
  },
} as const;

let validate: ReturnType<Ajv['compile']> | undefined;

/** Reads the config (`explicit`, or mcp-cassette.config.json in the current folder when it exists). */
export function loadReplayConfig(explicit?: string): ReplayConfig | undefined {
  const path = resolve(explicit ?? CONFIG_FILE);
  if (!existsSync(path)) {
    if (explicit !== undefined) throw new CassetteError('MCPC_CONFIG_NOT_FOUND', `config file ${path} does not exist`);
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CassetteError('MCPC_CONFIG_INVALID', `config file ${path} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  validate ??= new Ajv({ allErrors: true, strict: false }).compile(REPLAY_CONFIG_SCHEMA);
  if (!validate(value)) {
    const problems = (validate.errors ?? []).map(
      (e) =>
        `${e.instancePath || 'the top level'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : ''}`,
    );
    throw new CassetteError('MCPC_CONFIG_INVALID', `config file ${path} is invalid: ${problems.slice(0, 3).join('; ')}`);
  }
  const replay = (value as { replay?: ReplayConfig['replay'] }).replay ?? {};
  const lists: Array<[string, ReplaySettings]> = [
    ['/replay', replay],
    ...Object.entries(replay.cassettes ?? {}).map(([glob, s]): [string, ReplaySettings] => [`/replay/cassettes/${pointerToken(glob)}`, s]),
  ];
  for (const [at, s] of lists) {
    (s.ignore ?? []).forEach((spec, i) => {
      const problem = typeof spec === 'string' ? ignoreProblem(spec) : undefined;
      if (problem)
        throw new CassetteError(
          'MCPC_CONFIG_INVALID',
          `config file ${path} is invalid: ${at}/ignore/${i} "${String(spec)}" is not an ignore pattern: ${problem}; use ${IGNORE_FORMS.replace('--ignore ', '')} or { "method": …, "name": …, "paths": […] }`,
        );
    });
  }
  return { path, replay };
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i += 1;
      if (glob[i + 1] === '/') i += 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The settings for one cassette: the project's, then every override whose glob (relative to the
 * config file's folder) matches the cassette, in file order. Ignore lists add up. */
export function settingsFor(
  config: ReplayConfig,
  cassettePath: string,
): { ignore: IgnorePattern[]; timeoutMs?: number; content?: ContentPolicy } {
  const rel = relative(dirname(config.path), resolve(cassettePath)).split(sep).join('/');
  const out: { ignore: IgnorePattern[]; timeoutMs?: number; content?: ContentPolicy } = { ignore: compileIgnores(config.replay.ignore) };
  if (config.replay.timeoutMs !== undefined) out.timeoutMs = config.replay.timeoutMs;
  if (config.replay.content !== undefined) out.content = config.replay.content;
  for (const [glob, s] of Object.entries(config.replay.cassettes ?? {})) {
    if (!globToRegExp(glob.replace(/^\.\//, '')).test(rel)) continue;
    out.ignore.push(...compileIgnores(s.ignore));
    if (s.timeoutMs !== undefined) out.timeoutMs = s.timeoutMs;
    if (s.content !== undefined) out.content = s.content;
  }
  return out;
}
