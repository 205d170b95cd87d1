import type { Revision } from './check.js';
import type { Problem } from './checks.js';
import type { Parser } from './sdk.js';
import { modern } from './gates-modern.js';
import { november, june, march, original } from './gates-legacy.js';

/**
 * Revision gates. The SDK's schemas model every revision at once (the 2025 era and 2026-07-28
 * together), so on their own they are too loose for one revision and, in places, too strict for
 * another. Per revision, a gate set says which message types exist, which SDK schemas are
 * corrected (built from the SDK schema with `.extend`, never written from scratch), and which
 * overlay constraints apply on top. The differential test
 * (test/validators/structure-differential.test.ts) proves the result agrees with the official
 * schema of each revision on the official examples, our cassettes and mutated copies of them.
 */
export interface Gates {
  /** Whether the revision defines this type. */
  knows(type: string): boolean;
  /** Extra constraints checked in addition to the (possibly corrected) SDK schema. */
  extra: Record<string, (value: unknown, out: Problem[]) => void>;
  /** SDK schemas corrected for this revision. */
  replace: Record<string, Parser>;
  /** Requests that may be answered with an InputRequiredResult. */
  inputRequiredFor: Set<string>;
  errorType: string;
  /** Problems at members this revision does not type yet (the SDK types what later revisions added). */
  untyped?: (type: string, path: string) => boolean;
}

export function gatesFor(revision: Revision): Gates {
  switch (revision) {
    case '2026-07-28':
      return modern;
    case '2025-11-25':
      return november;
    case '2025-06-18':
      return june;
    case '2025-03-26':
      return march;
    default:
      return original;
  }
}
