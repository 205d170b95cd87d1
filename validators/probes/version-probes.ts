/** Version and per-request `_meta` probes (RULES.md §2). 2026-07-28 traffic only: a cassette of
 * 2025-era sessions gives them nothing to mutate. */
import { isObject } from '../rule.js';
import { result } from './catalogue.js';
import { CAPS, PV, type Json } from './plan.js';
import { errorOf, gate, inconclusive, notApplicable, once, openOr, resultOf, safeRequest, transportTrouble, short } from './support.js';
import { withMeta, type Exchange } from './target.js';
import type { Probe, ProbeContext, ProbeResult } from './types.js';

const NO_MODERN = 'the cassette has no 2026-07-28 request to derive it from (only 2025-era sessions)';

/** A protocol version no server supports (the fuzzer sends it too). */
export const UNSUPPORTED_VERSION = '2099-01-01';

export const unsupportedVersion: Probe = {
  id: 'unsupported-version',
  title: `A request naming protocol version ${UNSUPPORTED_VERSION}`,
  rules: ['VER-UNSUPPORTED-32022', 'HTTP-PV-UNSUPPORTED'],
  async run(ctx) {
    const http = ctx.target.transport === 'streamable-http';
    const rules = http ? this.rules : ['VER-UNSUPPORTED-32022'];
    const base = safeRequest(ctx.plan, 'modern');
    if (!base) return notApplicable(this.id, rules, NO_MODERN);
    const msg = withMeta(base, 'x', (m) => (m[PV] = UNSUPPORTED_VERSION));
    const ex = await once(ctx, 'modern', msg, this.id, rules);
    if (Array.isArray(ex)) return ex;
    const trouble = transportTrouble(ctx, ex, this.id, rules);
    if (trouble) return trouble;
    const io = { sent: ex.sent, received: ctx.target.describe(ex) };
    const e = errorOf(ex);
    const data = isObject(e?.data) ? e.data : {};
    const problems: string[] = [];
    if (e?.code !== -32022)
      problems.push(e ? `error code ${String(e.code)} instead of -32022` : 'the request was served instead of refused');
    else {
      if (!Array.isArray(data.supported) || !data.supported.every((v) => typeof v === 'string'))
        problems.push('data.supported is not a string array');
      if (data.requested !== UNSUPPORTED_VERSION) problems.push(`data.requested is ${short(data.requested)}, not "${UNSUPPORTED_VERSION}"`);
    }
    const out: ProbeResult[] = [
      result(
        this.id,
        'VER-UNSUPPORTED-32022',
        problems.length ? 'fail' : 'pass',
        problems.length ? problems.join('; ') : '-32022 with data.supported and data.requested',
        io,
      ),
    ];
    if (http) {
      const ok = ex.status === 400 && e?.code === -32022;
      out.push(
        result(
          this.id,
          'HTTP-PV-UNSUPPORTED',
          ok ? 'pass' : 'fail',
          ok
            ? 'HTTP 400 with -32022'
            : `HTTP ${String(ex.status)} with ${e ? `error ${String(e.code)}` : 'no error'}; expected 400 with -32022`,
          io,
        ),
      );
    }
    return out;
  },
};

function metaMissing(id: string, key: string, what: string): Probe {
  return {
    id,
    title: `A recorded request without ${what} in _meta`,
    rules: ['VER-META-MISSING-32602'],
    async run(ctx) {
      const base = safeRequest(ctx.plan, 'modern');
      if (!base) return notApplicable(this.id, this.rules, NO_MODERN);
      const msg = withMeta(base, 'x', (m) => delete m[key]);
      // On HTTP the headers stay those of the intact request: only the body lacks the field.
      const ex = await once(ctx, 'modern', msg, this.id, this.rules, { headersFrom: base });
      if (Array.isArray(ex)) return ex;
      const trouble = transportTrouble(ctx, ex, this.id, this.rules);
      if (trouble) return trouble;
      const e = errorOf(ex);
      const http = ctx.target.transport === 'streamable-http';
      const ok = e?.code === -32602 && (!http || ex.status === 400);
      const got = e
        ? `error ${String(e.code)}${http ? ` with HTTP ${String(ex.status)}` : ''}`
        : `a result${http ? ` (HTTP ${String(ex.status)})` : ''}`;
      return [
        result(
          this.id,
          'VER-META-MISSING-32602',
          ok ? 'pass' : 'fail',
          ok
            ? `-32602${http ? ' with HTTP 400' : ''}`
            : `${got}; expected -32602${http ? ' with HTTP 400' : ''} for a request without ${what}`,
          { sent: ex.sent, received: ctx.target.describe(ex) },
        ),
      ];
    },
  };
}

export const missingProtocolVersion = metaMissing('missing-protocol-version', PV, PV);
export const missingClientCapabilities = metaMissing('missing-client-capabilities', CAPS, CAPS);

/** The client capability each kind of input request needs (basic/patterns/mrtr.mdx). */
const CAP_FOR: Record<string, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

function neededCapabilities(response: Json | undefined): string[] {
  const r = response?.result;
  if (!isObject(r) || !isObject(r.inputRequests)) return [];
  const caps = new Set<string>();
  for (const req of Object.values(r.inputRequests))
    if (isObject(req) && typeof req.method === 'string' && CAP_FOR[req.method]) caps.add(CAP_FOR[req.method]!);
  return [...caps];
}

function asksFor(ex: Exchange, caps: string[]): boolean {
  return neededCapabilities(ex.response).some((c) => caps.includes(c));
}

const MISSING_CAP_ID = 'missing-capability';
const MISSING_CAP_RULES = ['VER-MISSING-CAP-32021', 'VER-NO-CAP-INFERENCE'];

export const missingCapability: Probe = {
  id: MISSING_CAP_ID,
  title: 'A recorded call that drew input_required, re-sent without the client capability it needs',
  rules: MISSING_CAP_RULES,
  async run(ctx) {
    const round = ctx.plan.mrtr.find((r) => neededCapabilities(r.first.response).length);
    if (!round)
      return notApplicable(
        MISSING_CAP_ID,
        MISSING_CAP_RULES,
        'no recorded 2026-07-28 call drew an input_required result with elicitation, sampling or roots requests',
      );
    const skipped = gate(ctx, round.first, MISSING_CAP_ID, MISSING_CAP_RULES);
    if (skipped) return skipped;
    const caps = neededCapabilities(round.first.response);
    const without = (id: string) =>
      withMeta(round.first.request, id, (m) => {
        const c: Json = isObject(m[CAPS]) ? { ...m[CAPS] } : {};
        for (const k of caps) delete c[k];
        m[CAPS] = c;
      });
    // 1. On a fresh connection: -32021 naming what is missing.
    const ex = await once(ctx, 'modern', without('x'), MISSING_CAP_ID, MISSING_CAP_RULES);
    if (Array.isArray(ex)) return ex;
    const trouble = transportTrouble(ctx, ex, MISSING_CAP_ID, MISSING_CAP_RULES);
    if (trouble) return trouble;
    const fresh = refusedWhenFresh(ctx, ex, caps);
    const out: ProbeResult[] = [fresh.verdict];
    if (!fresh.ok) {
      out.push(
        result(
          MISSING_CAP_ID,
          'VER-NO-CAP-INFERENCE',
          'inconclusive',
          'needs a server that refuses the call without the capability on a fresh connection (see VER-MISSING-CAP-32021)',
        ),
      );
      return out;
    }
    return [...out, ...(await notInferred(ctx, round.first.request, caps, without))];
  },
};

/** VER-MISSING-CAP-32021: on a fresh connection, the call without the capability is refused with
 * -32021 naming what is missing; `ok` when it was (the inference check needs that). */
function refusedWhenFresh(ctx: ProbeContext, ex: Exchange, caps: string[]): { verdict: ProbeResult; ok: boolean } {
  const io = { sent: ex.sent, received: ctx.target.describe(ex) };
  const e = errorOf(ex);
  const named = isObject(e?.data) && isObject(e.data.requiredCapabilities) ? Object.keys(e.data.requiredCapabilities) : [];
  if (e?.code === -32021) {
    const untruthful = named.filter((n) => !caps.includes(n));
    const ok = named.some((n) => caps.includes(n)) && untruthful.length === 0;
    const message = ok
      ? `-32021 naming ${named.join(', ')}`
      : `-32021 but data.requiredCapabilities names ${short(named)}; the request lacked ${caps.join(', ')}`;
    return { verdict: result(MISSING_CAP_ID, 'VER-MISSING-CAP-32021', ok ? 'pass' : 'fail', message, io), ok };
  }
  if (asksFor(ex, caps)) {
    const message = `the server asked for ${caps.join(', ')} input although the request did not declare the capability; expected -32021 naming it`;
    return { verdict: result(MISSING_CAP_ID, 'VER-MISSING-CAP-32021', 'fail', message, io), ok: false };
  }
  if (e) {
    const message = `error ${String(e.code)} instead of -32021 naming ${caps.join(', ')}`;
    return { verdict: result(MISSING_CAP_ID, 'VER-MISSING-CAP-32021', 'fail', message, io), ok: false };
  }
  const message = `the server answered without needing ${caps.join(', ')} this time`;
  return { verdict: result(MISSING_CAP_ID, 'VER-MISSING-CAP-32021', 'inconclusive', message, io), ok: false };
}

/** VER-NO-CAP-INFERENCE: on one connection, first with the capability, then without; the second
 * must not use it. */
async function notInferred(ctx: ProbeContext, request: Json, caps: string[], without: (id: string) => Json): Promise<ProbeResult[]> {
  const conn = await openOr(ctx, 'modern', MISSING_CAP_ID, ['VER-NO-CAP-INFERENCE']);
  if (Array.isArray(conn)) return conn;
  try {
    const withCap = await conn.request({ ...request, id: conn.nextId() });
    const second = await conn.request(without(conn.nextId()));
    const t2 = transportTrouble(ctx, second, MISSING_CAP_ID, ['VER-NO-CAP-INFERENCE']);
    if (t2) return t2;
    const io2 = { sent: [withCap.sent, second.sent], received: [ctx.target.describe(withCap), ctx.target.describe(second)] };
    const e2 = errorOf(second);
    if (asksFor(second, caps) || (!e2 && resultOf(second) && !('isError' in resultOf(second)!))) {
      return [
        result(
          MISSING_CAP_ID,
          'VER-NO-CAP-INFERENCE',
          'fail',
          `after a request that declared ${caps.join(', ')}, the same call without it was ${asksFor(second, caps) ? 'answered with input requests for it' : 'served'}: the capability was inferred from the earlier request`,
          io2,
        ),
      ];
    }
    return [
      result(
        MISSING_CAP_ID,
        'VER-NO-CAP-INFERENCE',
        'pass',
        `still ${e2 ? `error ${String(e2.code)}` : 'refused'} after a request that declared it`,
        io2,
      ),
    ];
  } finally {
    await conn.close();
  }
}

export { inconclusive };
