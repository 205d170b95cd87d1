/** Statelessness probes: MRTR requestState (basic/patterns/mrtr.mdx), list invariance and
 * clientInfo independence (basic/index.mdx §Statelessness, §_meta). */
import { isObject } from '../rule.js';
import { result } from './catalogue.js';
import { callsOf, INFO, isSafe, paramsOf, primaryEra, type Json, type MrtrRound } from './plan.js';
import {
  errorOf,
  gate,
  inconclusive,
  notApplicable,
  openOr,
  resultOf,
  safeRequest,
  sameAnswer,
  short,
  transportTrouble,
} from './support.js';
import { withMeta, withParams, type Conn, type Exchange } from './target.js';
import type { Probe, ProbeContext, ProbeResult } from './types.js';

const B64 = /^[A-Za-z0-9+/]+={0,2}$/;
const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;

function tamperLeaf(v: unknown): { value: unknown; done: boolean } {
  if (typeof v === 'string') return { value: `${v}x`, done: true };
  if (typeof v === 'number') return { value: v + 1, done: true };
  if (typeof v === 'boolean') return { value: !v, done: true };
  if (Array.isArray(v)) {
    const out = [...v];
    for (let i = 0; i < out.length; i++) {
      const t = tamperLeaf(out[i]);
      if (t.done) {
        out[i] = t.value;
        return { value: out, done: true };
      }
    }
    return { value: v, done: false };
  }
  if (isObject(v)) {
    const out: Json = { ...v };
    for (const k of Object.keys(out)) {
      const t = tamperLeaf(out[k]);
      if (t.done) {
        out[k] = t.value;
        return { value: out, done: true };
      }
    }
  }
  return { value: v, done: false };
}

/** A tampered copy of a requestState: when it is base64 JSON, one value inside is changed and it
 * is re-encoded the same way (what an attacker would do); otherwise one character in the middle
 * is flipped. */
export function tamper(state: string): { state: string; how: string } {
  for (const [re, enc] of [
    [B64URL, 'base64url'],
    [B64, 'base64'],
  ] as const) {
    if (!re.test(state)) continue;
    const bytes = Buffer.from(state, enc);
    if (bytes.toString(enc).replace(/=+$/, '') !== state.replace(/=+$/, '')) continue;
    try {
      const json = JSON.parse(bytes.toString('utf8')) as unknown;
      const t = tamperLeaf(json);
      if (!t.done) continue;
      let out = Buffer.from(JSON.stringify(t.value)).toString(enc);
      if (!state.endsWith('=')) out = out.replace(/=+$/, '');
      return { state: out, how: `decoded the ${enc} JSON, changed one value and re-encoded it` };
    } catch {
      /* not JSON inside: flip bytes instead */
    }
  }
  const i = Math.floor(state.length / 2);
  const c = state.charCodeAt(i);
  const flipped = String.fromCharCode(/[A-Ya-y0-8]/.test(state[i]!) ? c + 1 : /[Zz9]/.test(state[i]!) ? c - 1 : c ^ 1);
  return { state: state.slice(0, i) + flipped + state.slice(i + 1), how: `flipped character ${i}` };
}

function stateOf(ex: Exchange): string | undefined {
  const r = resultOf(ex);
  return r?.resultType === 'input_required' && typeof r.requestState === 'string' ? r.requestState : undefined;
}

/** Served: a complete result that is not an error. */
function served(ex: Exchange): boolean {
  const r = resultOf(ex);
  return !!r && r.resultType !== 'input_required' && r.isError !== true;
}

function refusal(ex: Exchange): string {
  const e = errorOf(ex);
  if (e) return `error ${String(e.code)}`;
  const r = resultOf(ex);
  if (r?.resultType === 'input_required') return 'a new input_required round';
  if (r?.isError === true) return 'an isError result';
  return 'no result';
}

/** Another request of the same kind: the first argument changed. */
function otherArguments(request: Json): Json | undefined {
  const a = paramsOf(request).arguments;
  if (!isObject(a)) return undefined;
  for (const [k, v] of Object.entries(a)) {
    if (typeof v === 'string') return { ...a, [k]: `${v}-other` };
    if (typeof v === 'number') return { ...a, [k]: v + 1 };
  }
  return undefined;
}

const MRTR_RULES = ['MRTR-STATE-INTEGRITY', 'MRTR-STATE-REPLAY', 'MRTR-ANY-INSTANCE'] as const;

export const mrtrState: Probe = {
  id: 'mrtr-state',
  title: 'MRTR retries: tampered requestState, requestState on another request, retry on a fresh connection',
  rules: MRTR_RULES,
  async run(ctx) {
    const round: MrtrRound | undefined = ctx.plan.mrtr.find((r) => r.retry);
    if (!round?.retry)
      return notApplicable(
        this.id,
        MRTR_RULES,
        ctx.plan.mrtr.length
          ? 'the recorded input_required round has no retry with inputResponses'
          : 'no recorded 2026-07-28 call drew an input_required result',
      );
    const skipped = gate(ctx, round.first, this.id, MRTR_RULES);
    if (skipped) return skipped;
    const retryParams = paramsOf(round.retry.request);
    const hasState = typeof retryParams.requestState === 'string';
    const conn = await openOr(ctx, 'modern', this.id, MRTR_RULES);
    if (Array.isArray(conn)) return conn;
    const out: ProbeResult[] = [];
    try {
      // A live requestState: the recorded one may have expired or be bound to that session.
      const mint = async (): Promise<Exchange> => conn.request({ ...round.first.request, id: conn.nextId() });
      const retry = (c: Conn, state: string | undefined, edit?: (p: Json) => void) =>
        c.request(
          withParams(round.retry!.request, c.nextId(), (p) => {
            if (state !== undefined) p.requestState = state;
            edit?.(p);
          }),
        );
      const first = await mint();
      const trouble = transportTrouble(ctx, first, this.id, MRTR_RULES);
      if (trouble) return trouble;
      if (resultOf(first)?.resultType !== 'input_required')
        return inconclusive(this.id, MRTR_RULES, `the recorded call did not draw input_required this time (${refusal(first)})`, {
          sent: first.sent,
          received: ctx.target.describe(first),
        });
      const live = stateOf(first);
      const baseline = await retry(conn, live);
      if (!served(baseline)) {
        out.push(
          ...inconclusive(
            this.id,
            ['MRTR-STATE-INTEGRITY', 'MRTR-STATE-REPLAY'],
            `the intact retry was not served (${refusal(baseline)}), so a refusal would prove nothing`,
            { sent: baseline.sent, received: ctx.target.describe(baseline) },
          ),
        );
      } else if (!hasState || live === undefined) {
        out.push(...notApplicable(this.id, ['MRTR-STATE-INTEGRITY', 'MRTR-STATE-REPLAY'], 'the server sends no requestState'));
      } else {
        // Integrity: a tampered state on a fresh round.
        const s1 = stateOf(await mint()) ?? live;
        const t = tamper(s1);
        const tampered = await retry(conn, t.state);
        const io = { sent: tampered.sent, received: ctx.target.describe(tampered) };
        if (!served(tampered))
          out.push(
            result(this.id, 'MRTR-STATE-INTEGRITY', 'pass', `tampered requestState (${t.how}) refused with ${refusal(tampered)}`, io),
          );
        else if (sameAnswer(tampered, baseline))
          out.push(
            result(
              this.id,
              'MRTR-STATE-INTEGRITY',
              'inconclusive',
              `a tampered requestState (${t.how}) was accepted but changed nothing; integrity protection is only required when the state influences authorization, access or business logic`,
              io,
            ),
          );
        else
          out.push(
            result(
              this.id,
              'MRTR-STATE-INTEGRITY',
              'fail',
              `a tampered requestState (${t.how}) was accepted and changed the answer: ${short(resultOf(tampered)?.content ?? resultOf(tampered))} instead of ${short(resultOf(baseline)?.content ?? resultOf(baseline))}`,
              { sent: tampered.sent, received: [ctx.target.describe(tampered), { intactRetry: ctx.target.describe(baseline) }] },
            ),
          );
        // Replay: a state minted for one request, presented with other arguments.
        const other = otherArguments(round.retry.request);
        if (!other)
          out.push(result(this.id, 'MRTR-STATE-REPLAY', 'not-applicable', 'the recorded retry has no string or number argument to vary'));
        else {
          const s3 = stateOf(await mint()) ?? live;
          const replayed = await retry(conn, s3, (p) => (p.arguments = other));
          const io3 = { sent: replayed.sent, received: ctx.target.describe(replayed) };
          out.push(
            served(replayed)
              ? result(
                  this.id,
                  'MRTR-STATE-REPLAY',
                  'fail',
                  'a requestState minted for one request was accepted on a request with other arguments; state should be bound to the originating request',
                  io3,
                )
              : result(
                  this.id,
                  'MRTR-STATE-REPLAY',
                  'pass',
                  `requestState presented with other arguments refused with ${refusal(replayed)}`,
                  io3,
                ),
          );
        }
      }
      // Any instance: mint here, retry on a fresh connection or process.
      const s4 = stateOf(await mint()) ?? live;
      const fresh = await openOr(ctx, 'modern', this.id, ['MRTR-ANY-INSTANCE']);
      if (Array.isArray(fresh)) out.push(...fresh);
      else {
        try {
          const elsewhere = await retry(fresh, s4);
          const t4 = transportTrouble(ctx, elsewhere, this.id, ['MRTR-ANY-INSTANCE']);
          if (t4) out.push(...t4);
          else {
            const io4 = { sent: elsewhere.sent, received: ctx.target.describe(elsewhere) };
            const r = resultOf(elsewhere);
            out.push(
              r && r.resultType !== 'input_required'
                ? result(
                    this.id,
                    'MRTR-ANY-INSTANCE',
                    'pass',
                    `the retry was served on a fresh ${ctx.target.transport === 'stdio' ? 'process' : 'connection'}`,
                    io4,
                  )
                : result(
                    this.id,
                    'MRTR-ANY-INSTANCE',
                    'fail',
                    `the retry sent to a fresh ${ctx.target.transport === 'stdio' ? 'process' : 'connection'} got ${refusal(elsewhere)}; it was served on the connection that started the round`,
                    io4,
                  ),
            );
          }
        } finally {
          await fresh.close();
        }
      }
    } finally {
      await conn.close();
    }
    return out;
  },
};

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
