// Prints every disagreement between our structure verdict and the official schemas (a debugging
// aid for the differential test): node dist/test/setup/structure-diff-report.js [limit]
import { typeProblems } from '../../validators/structure/check.js';
import { cassetteMessages, mutations, officialExamples, officialOracle, type CorpusItem } from '../helpers/structure-corpus.js';

const limit = Number(process.argv[2] ?? 40);
const oracles = new Map<string, ReturnType<typeof officialOracle>>();
const base = [...officialExamples(), ...cassetteMessages()];
const corpus: CorpusItem[] = [...base, ...base.flatMap((i) => mutations(i))];
let compared = 0,
  skipped = 0;
const invalid = new Map<string, number>();
const total = new Map<string, number>();
const diffs: string[] = [];
const byType = new Map<string, number>();
for (const item of corpus) {
  let oracle = oracles.get(item.revision);
  if (!oracle) oracles.set(item.revision, (oracle = officialOracle(item.revision)));
  const official = oracle(item.type, item.value);
  if (official === undefined && !item.origin.startsWith('example ')) throw new Error(`${item.type} is not in the ${item.revision} schema`);
  const ours = typeProblems(item.type, item.value, item.revision);
  if (official === undefined || ours === undefined) {
    skipped++;
    if (official !== undefined)
      byType.set(`unjudged ${item.revision} ${item.type}`, (byType.get(`unjudged ${item.revision} ${item.type}`) ?? 0) + 1);
    continue;
  }
  compared++;
  total.set(item.revision, (total.get(item.revision) ?? 0) + 1);
  if (!official) invalid.set(item.revision, (invalid.get(item.revision) ?? 0) + 1);
  if (official !== (ours.length === 0)) {
    const k = `${item.revision} ${item.type} official=${official}`;
    byType.set(k, (byType.get(k) ?? 0) + 1);
    diffs.push(`${k} :: ${item.origin} :: ours ${JSON.stringify(ours.slice(0, 2))}`);
  }
}
console.log({ total: Object.fromEntries(total), officiallyInvalid: Object.fromEntries(invalid) });
console.log({ base: base.length, corpus: corpus.length, compared, skipped, disagreements: diffs.length });
console.log(
  [...byType]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n}\t${k}`)
    .join('\n'),
);
const only = process.argv[3];
console.log(
  diffs
    .filter((d) => !only || d.startsWith(only))
    .slice(0, limit)
    .join('\n'),
);
