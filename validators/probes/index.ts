/**
 * The probes, in the order they run (explicit list, no directory scanning). The list-invariant
 * probe goes first so that nothing the other probes send can have changed the server's lists.
 */
import { mrtrState } from './mrtr-probe.js';
import { listInvariant, clientInfoProbe } from './state-probes.js';
import { invalidArgumentsProbe, unknownTool } from './tool-probes.js';
import { foreignOrigin, headerAbsent, headerMismatch, legacyInitialize, stdinEof, unknownMethod } from './transport-probes.js';
import { authorization } from './auth-probes.js';
import { missingCapability, missingClientCapabilities, missingProtocolVersion, unsupportedVersion } from './version-probes.js';
import type { Plan } from './plan.js';
import type { Target } from './target.js';
import type { Probe, ProbeOptions, ProbeResult } from './types.js';

export const PROBES: readonly Probe[] = [
  listInvariant,
  unsupportedVersion,
  missingProtocolVersion,
  missingClientCapabilities,
  missingCapability,
  unknownTool,
  invalidArgumentsProbe,
  mrtrState,
  clientInfoProbe,
  unknownMethod,
  legacyInitialize,
  headerMismatch,
  headerAbsent,
  foreignOrigin,
  authorization,
  stdinEof,
];

export async function runProbes(plan: Plan, target: Target, options: ProbeOptions, only?: readonly string[]): Promise<ProbeResult[]> {
  const results: ProbeResult[] = [];
  for (const probe of PROBES) {
    if (only?.length && !only.includes(probe.id)) continue;
    if (probe.transport && probe.transport !== target.transport) continue;
    results.push(...(await probe.run({ plan, target, options })));
  }
  return results;
}
