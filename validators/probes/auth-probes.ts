import { rawHttp } from '../../lib/raw-client/http.js';
import { isObject } from '../rule.js';
import { result } from './catalogue.js';
import { primaryEra } from './plan.js';
import { initializeFor, notApplicable, once, safeRequest, short, transportTrouble } from './support.js';
import type { Probe, ProbeResult } from './types.js';

const INVALID_TOKEN = 'Bearer mcp-cassette-probe-invalid-token';

export const authorization: Probe = {
  id: 'authorization',
  title: 'Requests without a token and with an invalid one, when the server uses authorization',
  rules: ['AUTH-401', 'AUTH-PRM-LOCATION'],
  transport: 'streamable-http',
  async run(ctx) {
    if (ctx.target.transport !== 'streamable-http') return notApplicable(this.id, this.rules, 'stdio target');
    const usesAuth = ctx.plan.usesAuth || Object.keys(ctx.target.extraHeaders).some((h) => h.toLowerCase() === 'authorization');
    if (!usesAuth)
      return notApplicable(
        this.id,
        this.rules,
        'the recorded traffic shows no authorization (no Authorization header, no 401), and no --header Authorization was given',
      );
    const era = primaryEra(ctx.plan) ?? 'modern';
    const base = safeRequest(ctx.plan, era) ?? initializeFor(ctx);
    const sendEra = base.method === 'initialize' ? 'modern' : era;
    // Raw: a 2025 connection could not even be opened without a token.
    const none = await once(ctx, sendEra, base, this.id, this.rules, { dropHeaders: ['authorization'] });
    if (Array.isArray(none)) return none;
    const bad = await once(ctx, sendEra, base, this.id, this.rules, { headers: { authorization: INVALID_TOKEN } });
    if (Array.isArray(bad)) return bad;
    const trouble = transportTrouble(ctx, none, this.id, this.rules) ?? transportTrouble(ctx, bad, this.id, this.rules);
    if (trouble) return trouble;
    const io = { sent: [none.sent, bad.sent], received: [ctx.target.describe(none), ctx.target.describe(bad)] };
    const out: ProbeResult[] = [
      none.status === 401 && bad.status === 401
        ? result(this.id, 'AUTH-401', 'pass', 'no token and an invalid token both got 401', io)
        : result(
            this.id,
            'AUTH-401',
            'fail',
            `no token got HTTP ${String(none.status)}, an invalid token got HTTP ${String(bad.status)}; both must get 401`,
            io,
          ),
    ];
    const challenges = [none, bad].filter((x) => x.status === 401);
    if (!challenges.length) {
      out.push(result(this.id, 'AUTH-PRM-LOCATION', 'inconclusive', 'no 401 to inspect'));
      return out;
    }
    if (challenges.every((x) => /resource_metadata="?[^"\s,]+/i.test(x.headers?.['www-authenticate'] ?? ''))) {
      out.push(
        result(
          this.id,
          'AUTH-PRM-LOCATION',
          'pass',
          `401 carries WWW-Authenticate ${short(challenges[0]!.headers!['www-authenticate'])}`,
          io,
        ),
      );
      return out;
    }
    // Fallback the spec allows: metadata at the well-known URIs.
    const u = new URL(ctx.target.url!);
    const wellKnown = [
      `${u.origin}/.well-known/oauth-protected-resource${u.pathname === '/' ? '' : u.pathname}`,
      `${u.origin}/.well-known/oauth-protected-resource`,
    ];
    for (const url of wellKnown) {
      const prm = await rawHttp({ url, method: 'GET', headers: { accept: 'application/json' }, timeoutMs: ctx.options.timeoutMs });
      if (prm.status === 200 && isObject(prm.messages[0]) && 'resource' in prm.messages[0]) {
        out.push(
          result(
            this.id,
            'AUTH-PRM-LOCATION',
            'pass',
            `no resource_metadata in WWW-Authenticate, but the metadata is served at ${url}`,
            io,
          ),
        );
        return out;
      }
    }
    out.push(
      result(
        this.id,
        'AUTH-PRM-LOCATION',
        'fail',
        `the 401 has ${challenges[0]!.headers?.['www-authenticate'] ? `WWW-Authenticate ${short(challenges[0]!.headers['www-authenticate'])} without resource_metadata` : 'no WWW-Authenticate header'} and no Protected Resource Metadata is served at ${wellKnown.join(' or ')}`,
        io,
      ),
    );
    return out;
  },
};
