/**
 * Expected failures, in YAML like the official conformance suite's baseline: a `probe` list whose
 * entries name a whole probe (`mrtr-state`) or one rule of it (`mrtr-state:MRTR-STATE-REPLAY`).
 * A listed failure is expected; a listed probe that now passes is stale (remove the entry), so CI
 * fails only on new failures and on fixes that did not update the baseline.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CassetteError } from '../../lib/errors.js';
import type { ProbeResult } from './types.js';

export interface BaselineEntry {
  probe: string;
  rule?: string;
  /** The entry as written, for messages. */
  text: string;
}

export function parseBaseline(text: string, file: string, knownProbes: readonly string[]): BaselineEntry[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new CassetteError('MCPC_CONFIG_INVALID', `${file}: not valid YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return [];
  const list = (doc as { probe?: unknown }).probe;
  if (typeof doc !== 'object' || Array.isArray(doc) || (list !== undefined && !Array.isArray(list))) {
    throw new CassetteError(
      'MCPC_CONFIG_INVALID',
      `${file}: expected a mapping with a \`probe:\` list, e.g.\nprobe:\n  - unknown-tool\n  - mrtr-state:MRTR-STATE-REPLAY`,
    );
  }
  const entries: BaselineEntry[] = [];
  for (const item of (list as unknown[] | undefined) ?? []) {
    if (typeof item !== 'string') {
      throw new CassetteError(
        'MCPC_CONFIG_INVALID',
        `${file}: entry ${JSON.stringify(item)} is not a string; write \`- probe:RULE-ID\` without a space after the colon`,
      );
    }
    const [probe, rule] = item.split(':', 2) as [string, string | undefined];
    if (!knownProbes.includes(probe)) {
      throw new CassetteError('MCPC_CONFIG_INVALID', `${file}: unknown probe \`${probe}\` (known: ${knownProbes.join(', ')})`);
    }
    entries.push({ probe, ...(rule ? { rule } : {}), text: item });
  }
  for (const e of entries) {
    if (!e.rule && entries.some((o) => o.probe === e.probe && o.rule)) {
      throw new CassetteError('MCPC_CONFIG_INVALID', `${file}: \`${e.probe}\` is listed both whole and per rule; keep one`);
    }
  }
  return entries;
}

export function loadBaseline(file: string, knownProbes: readonly string[]): BaselineEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CassetteError('MCPC_CONFIG_NOT_FOUND', `cannot read the expected-failures file ${file}: ${(err as Error).message}`);
  }
  return parseBaseline(text, file, knownProbes);
}

const matches = (e: BaselineEntry, r: ProbeResult) => e.probe === r.probe && (e.rule === undefined || e.rule === r.rule);

/** Marks expected failures, and returns the stale entries: listed, but every result they cover
 * passed. An entry whose probe did not apply, was skipped or was inconclusive is not stale (the
 * probe never got to judge). */
export function applyBaseline(results: ProbeResult[], entries: readonly BaselineEntry[]): { stale: BaselineEntry[] } {
  const stale: BaselineEntry[] = [];
  for (const e of entries) {
    const covered = results.filter((r) => matches(e, r));
    for (const r of covered) if (r.outcome === 'fail') r.baseline = 'expected';
    if (covered.some((r) => r.outcome === 'pass') && !covered.some((r) => r.outcome === 'fail')) {
      stale.push(e);
      for (const r of covered) if (r.outcome === 'pass') r.baseline = 'stale';
    }
  }
  return { stale };
}
