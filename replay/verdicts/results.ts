/** Verdicts on any other result: structural changes by kind (added, removed, changed, `_meta`, `resultType`). */
import { diffJson, type RawChange } from '../diff.js';
import { pointer } from '../normalise.js';
import type { Difference, Verdict } from '../types.js';
import type { Json } from './index.js';

/** Any other result: additions are compatible, removals and changes break clients that read them;
 * `_meta` changes are warnings. */
export function genericResult(recorded: Json, live: Json): Difference[] {
  return diffJson(recorded, live, ['result']).map((c) => fromRaw(c));
}

function fromRaw(c: RawChange): Difference {
  const path = pointer(c.path);
  const inMeta = c.path.includes('_meta');
  if (c.path[1] === 'resultType') {
    return {
      verdict: 'breaking',
      kind: 'result-type-changed',
      path,
      message: `resultType ${JSON.stringify(c.recorded)} became ${JSON.stringify(c.live)}`,
      recorded: c.recorded,
      live: c.live,
    };
  }
  if (c.type === 'added') return { verdict: 'compatible', kind: 'result-field-added', path, message: `${path} was added`, live: c.live };
  const verdict: Verdict = inMeta ? 'warning' : 'breaking';
  const kind = inMeta ? 'result-meta-changed' : c.type === 'removed' ? 'result-field-removed' : 'result-content-changed';
  return {
    verdict,
    kind,
    path,
    message: `${path} ${c.type === 'removed' ? 'was removed' : 'changed'}`,
    recorded: c.recorded,
    live: c.live,
  };
}
