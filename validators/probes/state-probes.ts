/** Statelessness probes: list invariance and clientInfo independence (basic/index.mdx
 * §Statelessness, §_meta). The MRTR requestState probe is mrtr-probe.ts. */
import { result } from './catalogue.js';
import { callsOf, INFO, isSafe, paramsOf, primaryEra } from './plan.js';
import { notApplicable, openOr, safeRequest, sameAnswer, short, transportTrouble } from './support.js';
import { withMeta, type Exchange } from './target.js';
import type { Probe, ProbeContext, ProbeResult } from './types.js';

const LISTS = ['tools/list', 'prompts/list', 'resources/list'];

export const listInvariant: Probe = {
  id: 'list-invariant',
  title: 'tools/list, prompts/list and resources/list on a fresh connection and after the other recorded requests',
  rules: ['STATE-LIST-INVARIANT'],
  async run(ctx) {
    const era = primaryEra(ctx.plan);
    if (!era) return notApplicable(this.id, this.rules, 'no recorded requests');
    const calls = callsOf(ctx.plan, era);
    const lists = LISTS.map((m) => calls.find((c) => c.request.method === m && !paramsOf(c.request).cursor)).filter((c) => c !== undefined);
    if (!lists.length) return notApplicable(this.id, this.rules, 'no recorded tools/list, prompts/list or resources/list');
    const others = calls.filter((c) => !LISTS.includes(String(c.request.method)) && !('inputResponses' in paramsOf(c.request)));
    const sendable = others.filter((c) => ctx.options.allowSideEffects || isSafe(ctx.plan, c.request));
    const held = others.length - sendable.length;
    const out: ProbeResult[] = [];
    for (const list of lists) {
      const method = String(list.request.method);
      const a = await openOr(ctx, era, this.id, this.rules);
      if (Array.isArray(a)) return a;
      let first: Exchange;
      try {
        first = await a.request({ ...list.request, id: a.nextId() });
      } finally {
        await a.close();
      }
      const trouble = transportTrouble(ctx, first, this.id, this.rules);
      if (trouble) {
        out.push(...trouble);
        continue;
      }
      const b = await openOr(ctx, era, this.id, this.rules);
      if (Array.isArray(b)) return b;
      let second: Exchange;
      const before: unknown[] = [];
      try {
        for (const c of sendable) before.push((await b.request({ ...c.request, id: b.nextId() })).sent.message);
        second = await b.request({ ...list.request, id: b.nextId() });
      } finally {
        await b.close();
      }
      const note = held
        ? ` (${held} recorded request${held === 1 ? '' : 's'} that could act twice not sent; --allow-side-effects sends them)`
        : '';
      const io = {
        sent: { fresh: first.sent, after: [...before, second.sent.message] },
        received: { fresh: ctx.target.describe(first), after: ctx.target.describe(second) },
      };
      out.push(
        sameAnswer(first, second)
          ? result(
              this.id,
              'STATE-LIST-INVARIANT',
              'pass',
              `${method} was the same on a fresh connection and after ${before.length} other request${before.length === 1 ? '' : 's'}${note}`,
              io,
            )
          : result(
              this.id,
              'STATE-LIST-INVARIANT',
              'fail',
              `${method} on a fresh connection differs from ${method} after ${before.length} other request${before.length === 1 ? '' : 's'}${note}`,
              io,
            ),
      );
    }
    return out;
  },
};

export const OTHER_CLIENT = { name: 'mcp-cassette-probe-other-client', version: '9.9.9' };

export const clientInfoProbe: Probe = {
  id: 'client-info',
  title: 'The same request with a different clientInfo',
  rules: ['ENV-INFO-NOEFFECT'],
  async run(ctx) {
    const era = primaryEra(ctx.plan);
    const base = era ? safeRequest(ctx.plan, era, ['tools/list', 'prompts/list', 'resources/list']) : undefined;
    if (!era || !base) return notApplicable(this.id, this.rules, 'no recorded request that is safe to re-send');
    const ask = async (other: boolean): Promise<Exchange | ProbeResult[]> => {
      const conn = await openOr(ctx, era, this.id, this.rules, other && era === 'legacy' ? { clientInfo: OTHER_CLIENT } : {});
      if (Array.isArray(conn)) return conn;
      try {
        const msg =
          other && era === 'modern' ? withMeta(base, conn.nextId(), (m) => (m[INFO] = OTHER_CLIENT)) : { ...base, id: conn.nextId() };
        return await conn.request(msg);
      } finally {
        await conn.close();
      }
    };
    const a = await ask(false);
    if (Array.isArray(a)) return a;
    const b = await ask(true);
    if (Array.isArray(b)) return b;
    const trouble = transportTrouble(ctx, a, this.id, this.rules) ?? transportTrouble(ctx, b, this.id, this.rules);
    if (trouble) return trouble;
    const io = { sent: [a.sent, b.sent], received: [ctx.target.describe(a), ctx.target.describe(b)] };
    const where = era === 'legacy' ? 'in initialize' : 'in _meta';
    return [
      sameAnswer(a, b)
        ? result(
            this.id,
            'ENV-INFO-NOEFFECT',
            'pass',
            `${String(base.method)} answered the same with clientInfo ${short(OTHER_CLIENT)} ${where}`,
            io,
          )
        : result(
            this.id,
            'ENV-INFO-NOEFFECT',
            'fail',
            `${String(base.method)} answered differently when clientInfo ${where} was ${short(OTHER_CLIENT)}`,
            io,
          ),
    ];
  },
};

export type { ProbeContext };
