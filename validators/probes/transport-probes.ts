/** Transport probes: unknown methods, Streamable HTTP headers, Origin, GET/DELETE
 * (basic/transports/streamable-http.mdx) and stdio shutdown (stdio.mdx). */
import { RawStdioProcess } from '../../lib/raw-client/stdio.js';
import { rawHttp } from '../../lib/raw-client/http.js';
import { isObject } from '../rule.js';
import { result } from './catalogue.js';
import { primaryEra, type Json } from './plan.js';
import {
  errorOf,
  initializeFor,
  notApplicable,
  once,
  openOr,
  recordedMeta,
  resultOf,
  safeRequest,
  short,
  transportTrouble,
} from './support.js';
import type { Exchange } from './target.js';
import type { Probe, ProbeContext, ProbeResult } from './types.js';

export const NO_MODERN = 'the cassette has no 2026-07-28 request to derive it from (only 2025-era sessions)';

/** A method no server has (the fuzzer sends it too). */
export const UNKNOWN_METHOD = 'mcp-cassette/probe-unknown-method';

export const unknownMethod: Probe = {
  id: 'unknown-method',
  title: 'A request for a method that does not exist',
  rules: ['HTTP-404-METHOD', 'CAP-UNDECLARED-32601'],
  async run(ctx) {
    const http = ctx.target.transport === 'streamable-http';
    const rule = http ? 'HTTP-404-METHOD' : 'CAP-UNDECLARED-32601';
    const era = http ? (ctx.plan.modern.length ? 'modern' : undefined) : primaryEra(ctx.plan);
    if (!era) return notApplicable(this.id, [rule], http ? NO_MODERN : 'no recorded requests');
    const meta = era === 'modern' ? recordedMeta(ctx.plan) : undefined;
    const msg: Json = { jsonrpc: '2.0', id: 'x', method: UNKNOWN_METHOD, params: meta ? { _meta: meta } : {} };
    const ex = await once(ctx, era, msg, this.id, [rule]);
    if (Array.isArray(ex)) return ex;
    const trouble = transportTrouble(ctx, ex, this.id, [rule]);
    if (trouble) return trouble;
    const io = { sent: ex.sent, received: ctx.target.describe(ex) };
    const e = errorOf(ex);
    const ok = e?.code === -32601 && (!http || ex.status === 404);
    return [
      result(
        this.id,
        rule,
        ok ? 'pass' : 'fail',
        ok
          ? `-32601${http ? ' with HTTP 404' : ''}`
          : `${e ? `error ${String(e.code)}` : 'no error'}${http ? ` with HTTP ${String(ex.status)}` : ''}; expected -32601${http ? ' with HTTP 404' : ''}`,
        io,
      ),
    ];
  },
};

function headerProbe(
  id: string,
  rule: string,
  title: string,
  mutate: (base: Json) => { headers?: Record<string, string>; dropHeaders?: string[]; what: string },
  whenServed?: (ctx: ProbeContext) => Promise<string | undefined>,
): Probe {
  return {
    id,
    title,
    rules: [rule],
    transport: 'streamable-http',
    async run(ctx) {
      if (ctx.target.transport !== 'streamable-http') return notApplicable(this.id, this.rules, 'stdio target');
      const base = safeRequest(ctx.plan, 'modern');
      if (!base) return notApplicable(this.id, this.rules, NO_MODERN);
      const m = mutate(base);
      const ex = await once(ctx, 'modern', base, this.id, this.rules, m);
      if (Array.isArray(ex)) return ex;
      const trouble = transportTrouble(ctx, ex, this.id, this.rules);
      if (trouble) return trouble;
      const io = { sent: ex.sent, received: ctx.target.describe(ex) };
      const e = errorOf(ex);
      if (ex.status === 400 && e?.code === -32020) return [result(this.id, rule, 'pass', `${m.what}: HTTP 400 with -32020`, io)];
      if (ex.status !== undefined && ex.status < 300 && whenServed) {
        const excuse = await whenServed(ctx);
        if (excuse) return [result(this.id, rule, 'inconclusive', `${m.what}: served (HTTP ${ex.status}); ${excuse}`, io)];
      }
      return [
        result(
          this.id,
          rule,
          'fail',
          `${m.what}: HTTP ${String(ex.status)}${e ? ` with error ${String(e.code)}` : ''}; expected 400 with -32020`,
          io,
        ),
      ];
    },
  };
}

export const headerMismatch = headerProbe(
  'header-mismatch',
  'HTTP-HDR-VALIDATE',
  'Mcp-Method header that disagrees with the body',
  (base) => {
    const other = base.method === 'tools/list' ? 'prompts/list' : 'tools/list';
    return { headers: { 'mcp-method': other }, what: `Mcp-Method: ${other} on a ${String(base.method)} body` };
  },
);

/** Whether the server serves 2025 `initialize` (per target, asked once). */
const legacyServed = new WeakMap<object, Promise<{ served: boolean; ex?: Exchange }>>();

function servesLegacy(ctx: ProbeContext, version = '2025-11-25'): Promise<{ served: boolean; ex?: Exchange }> {
  let p = legacyServed.get(ctx.target);
  if (!p) {
    p = (async () => {
      const conn = await openOr(ctx, 'modern', 'legacy-initialize', []);
      if (Array.isArray(conn)) return { served: false };
      try {
        const ex = await conn.request(
          {
            jsonrpc: '2.0',
            id: conn.nextId(),
            method: 'initialize',
            params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'mcp-cassette-probe', version: '0.0.0' } },
          },
          { dropHeaders: ['mcp-protocol-version', 'mcp-method'] },
        );
        return { served: isObject(resultOf(ex)), ex };
      } finally {
        await conn.close();
      }
    })();
    legacyServed.set(ctx.target, p);
  }
  return p;
}

export const headerAbsent = headerProbe(
  'header-absent',
  'HTTP-PV-ABSENT',
  'A 2026-07-28 request without the MCP-Protocol-Version header',
  () => ({ dropHeaders: ['mcp-protocol-version'], what: 'no MCP-Protocol-Version header' }),
  async (ctx) =>
    (await servesLegacy(ctx)).served
      ? 'the server also serves 2025 clients, and one that supports clients older than 2025-06-18 may read a missing header as 2025-03-26'
      : undefined,
);

const FOREIGN_ORIGIN = 'http://mcp-cassette-probe.invalid';

export const foreignOrigin: Probe = {
  id: 'foreign-origin',
  title: 'A request with a foreign Origin header',
  rules: ['HTTP-ORIGIN'],
  transport: 'streamable-http',
  async run(ctx) {
    if (ctx.target.transport !== 'streamable-http') return notApplicable(this.id, this.rules, 'stdio target');
    const era = primaryEra(ctx.plan);
    const base = era ? safeRequest(ctx.plan, era) : undefined;
    // 2025 era: the initialize itself carries the Origin.
    const msg: Json = base ?? initializeFor(ctx);
    const ex = await once(ctx, base ? era! : 'modern', msg, this.id, this.rules, { headers: { origin: FOREIGN_ORIGIN } });
    if (Array.isArray(ex)) return ex;
    const trouble = transportTrouble(ctx, ex, this.id, this.rules);
    if (trouble) return trouble;
    const io = { sent: ex.sent, received: ctx.target.describe(ex) };
    return [
      ex.status === 403
        ? result(this.id, 'HTTP-ORIGIN', 'pass', `Origin: ${FOREIGN_ORIGIN} refused with 403`, io)
        : result(this.id, 'HTTP-ORIGIN', 'fail', `Origin: ${FOREIGN_ORIGIN} got HTTP ${String(ex.status)}; expected 403`, io),
    ];
  },
};

export const legacyInitialize: Probe = {
  id: 'legacy-initialize',
  title: 'A 2025 initialize, GET and DELETE sent to a server that served 2026-07-28 traffic',
  rules: ['VER-INIT-ERR-NAMES', 'HTTP-405-GET-DELETE'],
  async run(ctx) {
    const http = ctx.target.transport === 'streamable-http';
    const rules = http ? this.rules : ['VER-INIT-ERR-NAMES'];
    if (!ctx.plan.modern.length) return notApplicable(this.id, rules, NO_MODERN);
    const { served, ex } = await servesLegacy(ctx);
    if (!ex) return notApplicable(this.id, rules, 'could not open a connection');
    const trouble = transportTrouble(ctx, ex, this.id, rules);
    if (trouble) return trouble;
    if (served)
      return notApplicable(
        this.id,
        rules,
        'the server also serves 2025 clients (initialize succeeded): these rules are for modern-only servers',
      );
    const io = { sent: ex.sent, received: ctx.target.describe(ex) };
    const e = errorOf(ex);
    const data = isObject(e?.data) ? e.data : {};
    const names = (Array.isArray(data.supported) && data.supported.length > 0) || /\d{4}-\d{2}-\d{2}/.test(String(e?.message ?? ''));
    const out: ProbeResult[] = [
      names
        ? result(
            this.id,
            'VER-INIT-ERR-NAMES',
            'pass',
            `initialize refused naming the supported versions (${short(data.supported ?? e?.message)})`,
            io,
          )
        : result(
            this.id,
            'VER-INIT-ERR-NAMES',
            'fail',
            `initialize refused without naming the supported versions: ${short(e ?? ctx.target.describe(ex))}`,
            io,
          ),
    ];
    if (http) {
      const get = await rawHttp({
        url: ctx.target.url!,
        method: 'GET',
        headers: { accept: 'text/event-stream', ...ctx.target.extraHeaders },
        timeoutMs: ctx.options.timeoutMs,
        headersOnly: true,
      });
      const del = await rawHttp({
        url: ctx.target.url!,
        method: 'DELETE',
        headers: { ...ctx.target.extraHeaders },
        timeoutMs: ctx.options.timeoutMs,
        headersOnly: true,
      });
      const io2 = {
        sent: [{ http: { method: 'GET' } }, { http: { method: 'DELETE' } }],
        received: [{ status: get.status ?? get.error ?? 'timeout' }, { status: del.status ?? del.error ?? 'timeout' }],
      };
      out.push(
        get.status === 405 && del.status === 405
          ? result(this.id, 'HTTP-405-GET-DELETE', 'pass', 'GET and DELETE answered 405', io2)
          : result(
              this.id,
              'HTTP-405-GET-DELETE',
              'fail',
              `GET got ${String(get.status ?? 'no answer')}, DELETE got ${String(del.status ?? 'no answer')}; a modern-only server answers both with 405`,
              io2,
            ),
      );
    }
    return out;
  },
};

export const stdinEof: Probe = {
  id: 'stdin-eof',
  title: 'Close stdin after one exchange and time the exit',
  rules: ['STDIO-EOF-EXIT'],
  transport: 'stdio',
  async run(ctx) {
    if (ctx.target.transport !== 'stdio') return notApplicable(this.id, this.rules, 'HTTP target');
    const era = primaryEra(ctx.plan) ?? 'modern';
    const proc = new RawStdioProcess({ command: ctx.target.command! });
    try {
      let sent: unknown;
      if (era === 'legacy' || !safeRequest(ctx.plan, 'modern')) {
        const init = initializeFor(ctx, 'eof-1');
        await proc.request(init, ctx.options.timeoutMs);
        proc.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        sent = init;
      } else {
        const msg = { ...safeRequest(ctx.plan, 'modern')!, id: 'eof-1' };
        await proc.request(msg, ctx.options.timeoutMs);
        sent = msg;
      }
      if (!proc.alive)
        return [
          result(
            this.id,
            'STDIO-EOF-EXIT',
            'inconclusive',
            `the server exited before stdin was closed${proc.spawnError ? `: ${proc.spawnError}` : ''}`,
          ),
        ];
      const start = Date.now();
      proc.closeStdin();
      const exit = await proc.waitForExit(ctx.options.eofGraceMs);
      const io = {
        sent: { message: sent, then: 'stdin closed' },
        received: exit ? { exit, afterMs: Date.now() - start } : { stillRunningAfterMs: ctx.options.eofGraceMs },
      };
      return [
        exit
          ? result(this.id, 'STDIO-EOF-EXIT', 'pass', `exited ${Date.now() - start} ms after stdin was closed`, io)
          : result(this.id, 'STDIO-EOF-EXIT', 'fail', `still running ${ctx.options.eofGraceMs} ms after stdin was closed`, io),
      ];
    } finally {
      await proc.close(200);
    }
  },
};
