/** Variance of the value keywords of one schema: `type`, `enum`, `const`, bounds, `pattern`, descriptions. */
import { deepEqual } from '../diff.js';
import { bound, type Comparison, covered, LOWER_BOUNDS, type Schema, types, UPPER_BOUNDS } from './index.js';

/** Types gained or lost. */
export function typeChanges(c: Comparison, o: Schema, n: Schema, p: string[]): void {
  const { out, polarity, where, name } = c;
  const ot = types(o);
  const nt = types(n);
  if (ot && nt) {
    const lost = [...ot].filter((t) => !covered(t, nt));
    const gained = [...nt].filter((t) => !covered(t, ot));
    if (polarity === 'input') {
      if (lost.length)
        out.push({
          verdict: 'breaking',
          kind: 'input-type-narrowed',
          path: where([...p, 'type']),
          message: `${name(p)} no longer accepts ${lost.join(', ')}`,
          recorded: o.type,
          live: n.type,
        });
      else if (gained.length)
        out.push({
          verdict: 'compatible',
          kind: 'input-type-widened',
          path: where([...p, 'type']),
          message: `${name(p)} now also accepts ${gained.join(', ')}`,
          recorded: o.type,
          live: n.type,
        });
    } else {
      if (gained.length)
        out.push({
          verdict: 'breaking',
          kind: 'output-type-changed',
          path: where([...p, 'type']),
          message: `${name(p)} may now be ${gained.join(', ')}`,
          recorded: o.type,
          live: n.type,
        });
      else if (lost.length)
        out.push({
          verdict: 'compatible',
          kind: 'output-type-narrowed',
          path: where([...p, 'type']),
          message: `${name(p)} is no longer ${lost.join(', ')}`,
          recorded: o.type,
          live: n.type,
        });
    }
  } else if (ot && !nt && polarity === 'output') {
    out.push({
      verdict: 'breaking',
      kind: 'output-type-changed',
      path: where([...p, 'type']),
      message: `${name(p)} lost its type constraint`,
      recorded: o.type,
      live: n.type,
    });
  } else if (!ot && nt && polarity === 'input') {
    out.push({
      verdict: 'breaking',
      kind: 'input-type-narrowed',
      path: where([...p, 'type']),
      message: `${name(p)} now must be ${[...nt].join(', ')}`,
      recorded: o.type,
      live: n.type,
    });
  }
}

/** Enum values gained or lost. */
export function enumChanges(c: Comparison, o: Schema, n: Schema, p: string[]): void {
  const { out, polarity, where, name } = c;
  const oe = Array.isArray(o.enum) ? o.enum : undefined;
  const ne = Array.isArray(n.enum) ? n.enum : undefined;
  if (oe || ne) {
    const lost = oe ? (ne ? oe.filter((v) => !ne.some((w) => deepEqual(v, w))) : []) : undefined;
    const gained = ne ? (oe ? ne.filter((v) => !oe.some((w) => deepEqual(v, w))) : []) : undefined;
    const ep = where([...p, 'enum']);
    if (polarity === 'input') {
      if (!oe && ne)
        out.push({
          verdict: 'breaking',
          kind: 'input-enum-shrunk',
          path: ep,
          message: `${name(p)} is now limited to ${JSON.stringify(ne)}`,
          live: ne,
        });
      else if (oe && !ne)
        out.push({ verdict: 'compatible', kind: 'input-enum-widened', path: ep, message: `${name(p)} is no longer an enum`, recorded: oe });
      else {
        if (lost?.length)
          out.push({
            verdict: 'breaking',
            kind: 'input-enum-shrunk',
            path: ep,
            message: `${name(p)} no longer accepts ${lost.map((v) => JSON.stringify(v)).join(', ')}`,
            recorded: oe,
            live: ne,
          });
        if (gained?.length)
          out.push({
            verdict: 'compatible',
            kind: 'input-enum-widened',
            path: ep,
            message: `${name(p)} now also accepts ${gained.map((v) => JSON.stringify(v)).join(', ')}`,
            recorded: oe,
            live: ne,
          });
      }
    } else {
      if (oe && !ne)
        out.push({
          verdict: 'breaking',
          kind: 'output-enum-widened',
          path: ep,
          message: `${name(p)} is no longer limited to ${JSON.stringify(oe)}`,
          recorded: oe,
        });
      else if (!oe && ne)
        out.push({
          verdict: 'compatible',
          kind: 'output-enum-narrowed',
          path: ep,
          message: `${name(p)} is now limited to ${JSON.stringify(ne)}`,
          live: ne,
        });
      else {
        if (gained?.length)
          out.push({
            verdict: 'breaking',
            kind: 'output-enum-widened',
            path: ep,
            message: `${name(p)} may now be ${gained.map((v) => JSON.stringify(v)).join(', ')}`,
            recorded: oe,
            live: ne,
          });
        if (lost?.length)
          out.push({
            verdict: 'compatible',
            kind: 'output-enum-narrowed',
            path: ep,
            message: `${name(p)} is no longer ${lost.map((v) => JSON.stringify(v)).join(', ')}`,
            recorded: oe,
            live: ne,
          });
      }
    }
  }
}

/** `const`, numeric and size bounds (a higher lower bound or a lower upper bound narrows), `pattern`, and the descriptions models read. */
export function constraintChanges(c: Comparison, o: Schema, n: Schema, p: string[]): void {
  const { out, polarity, where, name } = c;
  if ('const' in o || 'const' in n) {
    if (!deepEqual(o.const, n.const)) {
      out.push({
        verdict: 'breaking',
        kind: `${polarity}-const-changed`,
        path: where([...p, 'const']),
        message: `${name(p)}: const changed`,
        recorded: o.const,
        live: n.const,
      });
    }
  }
  // Numeric and size bounds: a higher lower bound or a lower upper bound narrows.
  for (const key of [...LOWER_BOUNDS, ...UPPER_BOUNDS]) {
    const ov = bound(o, key);
    const nv = bound(n, key);
    if (ov === nv) continue;
    const lower = LOWER_BOUNDS.includes(key);
    const narrowed = nv !== undefined && (ov === undefined || (lower ? nv > ov : nv < ov));
    const breaking = polarity === 'input' ? narrowed : !narrowed;
    out.push({
      verdict: breaking ? 'breaking' : 'compatible',
      kind: `${polarity}-constraint-${narrowed ? 'tightened' : 'loosened'}`,
      path: where([...p, key]),
      message: `${name(p)}: ${key} ${ov ?? 'unset'} → ${nv ?? 'unset'}`,
      recorded: ov,
      live: nv,
    });
  }
  if (o.pattern !== n.pattern) {
    out.push({
      verdict: 'warning',
      kind: `${polarity}-pattern-changed`,
      path: where([...p, 'pattern']),
      message: `${name(p)}: pattern changed`,
      recorded: o.pattern,
      live: n.pattern,
    });
  }
  for (const key of ['description', 'title']) {
    if (o[key] !== n[key]) {
      out.push({
        verdict: 'warning',
        kind: `schema-${key}-changed`,
        path: where([...p, key]),
        message: `${name(p)}: ${key} changed (models read it)`,
        recorded: o[key],
        live: n[key],
      });
    }
  }
}
