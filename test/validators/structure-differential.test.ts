import test from 'ava';
import { REVISIONS, typeProblems } from '../../validators/structure/check.js';
import { gatesFor } from '../../validators/structure/gates.js';
import { fastValid, problemsOf, sdkSchema } from '../../validators/structure/sdk.js';
import { SPEC_DIR_HINT, specDir } from '../helpers/paths.js';
import { cassetteMessages, mutations, officialExamples, officialOracle, type CorpusItem } from '../helpers/structure-corpus.js';

/**
 * Our structure verdict (SDK schemas + revision gates) against the official schema of each
 * revision, read from the spec folder as an oracle (paths.ts specDir): on the official examples, every message of our
 * cassettes, and mutated copies of both (members removed, retyped, added), the verdicts agree.
 */
if (!specDir) {
  // A plain clone has no official schemas: said, and reported as skipped, never counted as a pass.
  console.log(`structure-differential: skipped, the official schemas are not here; ${SPEC_DIR_HINT}`);
  test.skip(`our structure verdict equals the official schema verdict (${SPEC_DIR_HINT})`, () => {});
} else {
  const examples = officialExamples();
  const messages = cassetteMessages();
  const base = [...examples, ...messages];
  const corpus: CorpusItem[] = [...base, ...base.flatMap((i) => mutations(i))];

  test('the corpus covers the 129 official examples, our cassettes, and mutations, in every revision', (t) => {
    t.deepEqual([...REVISIONS], ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    t.is(new Set(examples.filter((e) => e.revision === '2026-07-28').map((e) => e.origin)).size, 129);
    for (const r of REVISIONS)
      t.true(
        messages.some((m) => m.revision === r),
        `cassette messages judged under ${r}`,
      );
    t.true(corpus.length > 10 * base.length, `${corpus.length} items`);
  });

  test('our structure verdict equals the official schema verdict on the whole corpus', (t) => {
    const oracles = new Map(REVISIONS.map((r) => [r, officialOracle(r)]));
    const disagreements: string[] = [];
    const counts = new Map<string, { valid: number; invalid: number }>();
    let skipped = 0;
    for (const item of corpus) {
      const official = oracles.get(item.revision)!(item.type, item.value);
      const ours = typeProblems(item.type, item.value, item.revision);
      if (official === undefined) {
        // Only 2026-07-28 building blocks tried under a 2025 revision may be absent from its file.
        t.true(item.origin.startsWith('example ') && item.revision !== '2026-07-28', `${item.type} is in the ${item.revision} schema`);
        skipped++;
        continue;
      }
      if (ours === undefined) {
        disagreements.push(`${item.revision} ${item.type}: not judged by us (${item.origin})`);
        continue;
      }
      const c = counts.get(item.revision) ?? { valid: 0, invalid: 0 };
      c[official ? 'valid' : 'invalid']++;
      counts.set(item.revision, c);
      if (official !== (ours.length === 0))
        disagreements.push(`${item.revision} ${item.type} official=${official} ours=${JSON.stringify(ours.slice(0, 2))} (${item.origin})`);
    }
    t.deepEqual(disagreements.slice(0, 20), [], `${disagreements.length} disagreements`);
    // Both verdicts occur in every revision, so agreement is not agreement on "everything passes".
    for (const r of REVISIONS) {
      const c = counts.get(r)!;
      t.true(c.valid > 100 && c.invalid > 100, `${r}: ${c.valid} valid, ${c.invalid} invalid`);
    }
    t.true(skipped < corpus.length / 20);
    // The corpus holds values whose official verdict changes from one revision to the next (audio
    // and resource links, elicitation, structured output…), so agreement covers what sets the
    // revisions apart, not only what they share.
    const verdicts = new Map<string, Map<string, boolean | undefined>>();
    for (const item of corpus) {
      const key = `${item.type} ${item.origin.replace(`@${item.revision}`, '@')}`;
      if (!verdicts.has(key)) verdicts.set(key, new Map());
      verdicts.get(key)!.set(item.revision, oracles.get(item.revision)!(item.type, item.value));
    }
    for (let i = 0; i + 1 < REVISIONS.length - 1; i++) {
      const [older, newer] = [REVISIONS[i]!, REVISIONS[i + 1]!];
      const differing = [...verdicts.values()].filter(
        (v) => v.get(older) !== undefined && v.get(newer) !== undefined && v.get(older) !== v.get(newer),
      ).length;
      t.true(differing > 10, `${differing} values the ${older} and ${newer} schemas judge differently`);
    }
  });

  test('the fast check (ajv, compiled from the SDK schemas) never passes what Zod rejects', (t) => {
    // Zod's verdict as the structure check uses it: format-like refinements (base64) do not count.
    const zodValid = (schema: { safeParse(v: unknown): { success: boolean; error?: { issues: never[] } } }, value: unknown): boolean => {
      const r = schema.safeParse(value);
      return r.success || problemsOf(r.error?.issues ?? []).length === 0;
    };
    const looser: string[] = [];
    let compared = 0;
    for (const item of corpus) {
      const schema = gatesFor(item.revision).replace[item.type] ?? sdkSchema(item.type);
      if (!schema || !('_zod' in schema)) continue;
      compared++;
      if (fastValid(schema, item.value) && !zodValid(schema as never, item.value))
        looser.push(`${item.revision} ${item.type} (${item.origin})`);
    }
    t.deepEqual(looser.slice(0, 20), [], `${looser.length} of ${compared}`);
    t.true(compared > 10_000);
  });
}
