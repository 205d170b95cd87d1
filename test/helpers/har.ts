/**
 * HAR helpers for the export/import tests: the published HAR 1.2 JSON Schemas (the `har-schema`
 * package, draft-06) compiled with ajv, and the CLI runs of `export` and `import`.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { loadCassette } from '../../lib/cassette/store.js';
import type { RecordedMessage } from '../../lib/message.js';
import type { replayCassette } from '../../replay/index.js';
import { cli, node } from './paths.js';

const require = createRequire(import.meta.url);
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

let compiled: ValidateFunction | undefined;

/** The validator of a whole HAR document (`har.json` and the schemas it refers to). */
export function harValidator(): ValidateFunction {
  if (compiled) return compiled;
  const folder = join(dirname(require.resolve('har-schema/package.json')), 'lib');
  // strict off: the package's schemas carry keywords that are no JSON Schema ("optional", "min").
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
  addFormats(ajv);
  for (const name of readdirSync(folder).filter((n) => n.endsWith('.json') && n !== 'har.json'))
    ajv.addSchema(JSON.parse(readFileSync(join(folder, name), 'utf8')) as object);
  compiled = ajv.compile(JSON.parse(readFileSync(join(folder, 'har.json'), 'utf8')) as object);
  return compiled;
}

const run = promisify(execFile);

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI and resolves with its status and output, whatever the status. */
export async function runCli(args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(node, [cli, ...args], { maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** `import --from har <har> --output <path>`, then the cassette it wrote. */
export async function importHar(har: string, path: string): Promise<{ path: string; cassette: Cassette; stderr: string }> {
  const r = await runCli(['import', '--from', 'har', har, '--output', path]);
  if (r.code !== 0) throw new Error(`import exited ${r.code}: ${r.stderr}`);
  return { path, cassette: loadCassette(path), stderr: r.stderr };
}

/** A message's text: its exact bytes when kept, else its JSON. */
export const textOf = (m: RecordedMessage): string => m.raw ?? JSON.stringify(m.json);

/** Every difference a replay found, one line each. */
export const found = (r: Awaited<ReturnType<typeof replayCassette>>): string[] =>
  r.sessions.flatMap((s) => s.interactions.flatMap((i) => i.differences.map((d) => `${i.method} ${i.name ?? ''}: ${d.verdict} ${d.kind}`)));
