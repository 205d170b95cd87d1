/**
 * What the check tests share: running `mcp-cassette check` as a real process against the replay
 * target (test/servers/replay-target.ts, with its seeded `--regression` builds), and reading its
 * reports back with real parsers: JUnit with fast-xml-parser, SARIF against the official SARIF
 * 2.1.0 schema (the one @microsoft/jest-sarif ships).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import Ajv04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked, type Finished } from '../helpers/proc.js';
import { replayTarget } from '../replay/target-client.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const Ajv04 = Ajv04Module as unknown as typeof Ajv04Module.default;

/** The replay target, plain or with one seeded regression. */
export const build = (regression?: string): string[] => [node, replayTarget, ...(regression ? ['--regression', regression] : [])];

/** The environment GitHub gives a step, minus the workflow's own: no GITHUB_* leaks in from ours. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GITHUB_') && k !== 'CI') env[k] = v;
  return { ...env, ...extra };
}

export function runCheck(t: ExecutionContext, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Finished> {
  return collect(spawnTracked(t, node, [cli, 'check', ...args], { cwd: options.cwd ?? root, env: options.env ?? cleanEnv() }));
}

export interface JunitCase {
  classname: string;
  name: string;
  failure?: { message: string; '#text'?: string };
  'system-out'?: string;
}

export function readJunit(t: ExecutionContext, file: string): { tests: number; failures: number; cases: JunitCase[] } {
  const xml = readFileSync(file, 'utf8');
  t.is(XMLValidator.validate(xml), true, 'well-formed XML');
  const doc = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => ['testsuite', 'testcase'].includes(name),
  }).parse(xml) as { testsuites: { tests: string; failures: string; testsuite: { testcase?: JunitCase[] }[] } };
  return {
    tests: Number(doc.testsuites.tests),
    failures: Number(doc.testsuites.failures),
    cases: doc.testsuites.testsuite.flatMap((s) => s.testcase ?? []),
  };
}

export interface SarifResult {
  ruleId: string;
  level: string;
  message: { text: string };
  locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
  partialFingerprints: Record<string, string>;
  suppressions?: unknown[];
  properties: { kind: string; seq?: number; session?: number } & Record<string, unknown>;
}

/** `runs[0].tool.driver`: the tool and the rules its results name. */
export interface SarifDriver {
  name: string;
  version: string;
  semanticVersion: string;
  informationUri: string;
  rules: { id: string; helpUri: string; help: { text: string; markdown: string } }[];
}

export interface SarifLog {
  runs: { tool: { driver: SarifDriver }; results: SarifResult[] }[];
}

/** A SARIF log's text, parsed after asserting it is valid against the official 2.1.0 schema. */
export function parseSarif(t: ExecutionContext, text: string): SarifLog {
  const sarif = JSON.parse(text) as SarifLog;
  const schema = JSON.parse(
    readFileSync(join(root, 'node_modules', '@microsoft', 'jest-sarif', 'lib', 'schemas', 'sarif-2.1.0-rtm.5.json'), 'utf8'),
  ) as object;
  // The SARIF schema is draft-04, and one of its patterns is not valid with the u flag.
  const ajv = new Ajv04({ strict: false, allErrors: true, unicodeRegExp: false });
  addFormats(ajv);
  t.true(ajv.validate(schema, sarif), JSON.stringify(ajv.errors?.slice(0, 3)));
  return sarif;
}

/** The results of a SARIF file, after asserting it is valid against the official 2.1.0 schema. */
export function readSarif(t: ExecutionContext, file: string): SarifResult[] {
  return parseSarif(t, readFileSync(file, 'utf8')).runs[0]!.results;
}

/** Each result's region points at the recorded message it names: the object that starts on that
 * line of the cassette holds `"seq": <seq>` (pretty-printed cassettes put it on the next line). */
export function assertRegions(t: ExecutionContext, results: readonly SarifResult[], cwd: string): void {
  for (const r of results) {
    const loc = r.locations[0]!.physicalLocation;
    t.true(loc.region.startLine >= 1, `${r.ruleId} has a region`);
    t.truthy(r.partialFingerprints['mcpCassetteFinding/v1'], `${r.ruleId} has a fingerprint`);
    if (r.properties.seq === undefined || r.properties.kind === 'stale') continue;
    const lines = readFileSync(join(cwd, loc.artifactLocation.uri), 'utf8').split('\n');
    t.regex(lines[loc.region.startLine - 1]!, /^\s*\{\s*$/, `${r.ruleId}: line ${loc.region.startLine} opens the message`);
    t.is(
      lines[loc.region.startLine]!.trim(),
      `"seq": ${r.properties.seq},`,
      `${r.ruleId}: line ${loc.region.startLine} is message #${r.properties.seq}`,
    );
  }
}
