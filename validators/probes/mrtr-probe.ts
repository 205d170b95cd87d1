/** The MRTR requestState probe (basic/patterns/mrtr.mdx): a tampered requestState, a requestState
 * presented on another request, and a retry on a fresh connection or process. */
import { isObject } from '../rule.js';
import { result } from './catalogue.js';
import { paramsOf, type Json, type MrtrRound } from './plan.js';
import { errorOf, gate, inconclusive, notApplicable, openOr, resultOf, sameAnswer, short, transportTrouble } from './support.js';
import { withParams, type Conn, type Exchange } from './target.js';
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
const ID = 'mrtr-state';

/** One run of the probe: the recorded round, the connection it runs on, and the intact retry that
 * every altered one is compared with. */
interface Trial {
  ctx: ProbeContext;
  round: MrtrRound & { retry: NonNullable<MrtrRound['retry']> };
  /** A fresh input_required round: a live requestState (the recorded one may have expired or be
   * bound to that session). */
  mint: () => Promise<Exchange>;
  /** The recorded retry on `c`, with `state` as its requestState. */
  retry: (c: Conn, state: string | undefined, edit?: (p: Json) => void) => Promise<Exchange>;
  /** The requestState of the first live round. */
  live: string | undefined;
}

export const mrtrState: Probe = {
  id: ID,
  title: 'MRTR retries: tampered requestState, requestState on another request, retry on a fresh connection',
  rules: MRTR_RULES,
  async run(ctx) {
    const round: MrtrRound | undefined = ctx.plan.mrtr.find((r) => r.retry);
    if (!round?.retry)
      return notApplicable(
        ID,
        MRTR_RULES,
        ctx.plan.mrtr.length
          ? 'the recorded input_required round has no retry with inputResponses'
          : 'no recorded 2026-07-28 call drew an input_required result',
      );
    const skipped = gate(ctx, round.first, ID, MRTR_RULES);
    if (skipped) return skipped;
    const hasState = typeof paramsOf(round.retry.request).requestState === 'string';
    const conn = await openOr(ctx, 'modern', ID, MRTR_RULES);
    if (Array.isArray(conn)) return conn;
    const retryRequest = round.retry.request;
    try {
      const mint = async (): Promise<Exchange> => conn.request({ ...round.first.request, id: conn.nextId() });
      const retry = (c: Conn, state: string | undefined, edit?: (p: Json) => void) =>
        c.request(
          withParams(retryRequest, c.nextId(), (p) => {
            if (state !== undefined) p.requestState = state;
            edit?.(p);
          }),
        );
      const first = await mint();
      const trouble = transportTrouble(ctx, first, ID, MRTR_RULES);
      if (trouble) return trouble;
      if (resultOf(first)?.resultType !== 'input_required')
        return inconclusive(ID, MRTR_RULES, `the recorded call did not draw input_required this time (${refusal(first)})`, {
          sent: first.sent,
          received: ctx.target.describe(first),
        });
      const trial: Trial = { ctx, round: round as Trial['round'], mint, retry, live: stateOf(first) };
      const out: ProbeResult[] = [];
      const baseline = await retry(conn, trial.live);
      if (!served(baseline)) {
        out.push(
          ...inconclusive(
            ID,
            ['MRTR-STATE-INTEGRITY', 'MRTR-STATE-REPLAY'],
            `the intact retry was not served (${refusal(baseline)}), so a refusal would prove nothing`,
            { sent: baseline.sent, received: ctx.target.describe(baseline) },
          ),
        );
      } else if (!hasState || trial.live === undefined) {
        out.push(...notApplicable(ID, ['MRTR-STATE-INTEGRITY', 'MRTR-STATE-REPLAY'], 'the server sends no requestState'));
      } else {
        out.push(await integrity(trial, conn, trial.live, baseline), await stateReplay(trial, conn, trial.live));
      }
      out.push(...(await anyInstance(trial)));
      return out;
    } finally {
      await conn.close();
    }
  },
};

/** Integrity: a tampered state on a fresh round. */
async function integrity(trial: Trial, conn: Conn, live: string, baseline: Exchange): Promise<ProbeResult> {
  const { ctx } = trial;
  const s1 = stateOf(await trial.mint()) ?? live;
  const t = tamper(s1);
  const tampered = await trial.retry(conn, t.state);
  const io = { sent: tampered.sent, received: ctx.target.describe(tampered) };
  if (!served(tampered))
    return result(ID, 'MRTR-STATE-INTEGRITY', 'pass', `tampered requestState (${t.how}) refused with ${refusal(tampered)}`, io);
  if (sameAnswer(tampered, baseline))
    return result(
      ID,
      'MRTR-STATE-INTEGRITY',
      'inconclusive',
      `a tampered requestState (${t.how}) was accepted but changed nothing; integrity protection is only required when the state influences authorization, access or business logic`,
      io,
    );
  return result(
    ID,
    'MRTR-STATE-INTEGRITY',
    'fail',
    `a tampered requestState (${t.how}) was accepted and changed the answer: ${short(resultOf(tampered)?.content ?? resultOf(tampered))} instead of ${short(resultOf(baseline)?.content ?? resultOf(baseline))}`,
    { sent: tampered.sent, received: [ctx.target.describe(tampered), { intactRetry: ctx.target.describe(baseline) }] },
  );
}

/** Replay: a state minted for one request, presented with other arguments. */
async function stateReplay(trial: Trial, conn: Conn, live: string): Promise<ProbeResult> {
  const other = otherArguments(trial.round.retry.request);
  if (!other) return result(ID, 'MRTR-STATE-REPLAY', 'not-applicable', 'the recorded retry has no string or number argument to vary');
  const s3 = stateOf(await trial.mint()) ?? live;
  const replayed = await trial.retry(conn, s3, (p) => (p.arguments = other));
  const io3 = { sent: replayed.sent, received: trial.ctx.target.describe(replayed) };
  return served(replayed)
    ? result(
        ID,
        'MRTR-STATE-REPLAY',
        'fail',
        'a requestState minted for one request was accepted on a request with other arguments; state should be bound to the originating request',
        io3,
      )
    : result(ID, 'MRTR-STATE-REPLAY', 'pass', `requestState presented with other arguments refused with ${refusal(replayed)}`, io3);
}

/** Any instance: mint here, retry on a fresh connection or process. */
async function anyInstance(trial: Trial): Promise<ProbeResult[]> {
  const { ctx } = trial;
  const s4 = stateOf(await trial.mint()) ?? trial.live;
  const fresh = await openOr(ctx, 'modern', ID, ['MRTR-ANY-INSTANCE']);
  if (Array.isArray(fresh)) return fresh;
  try {
    const elsewhere = await trial.retry(fresh, s4);
    const t4 = transportTrouble(ctx, elsewhere, ID, ['MRTR-ANY-INSTANCE']);
    if (t4) return t4;
    const io4 = { sent: elsewhere.sent, received: ctx.target.describe(elsewhere) };
    const r = resultOf(elsewhere);
    const where = ctx.target.transport === 'stdio' ? 'process' : 'connection';
    return [
      r && r.resultType !== 'input_required'
        ? result(ID, 'MRTR-ANY-INSTANCE', 'pass', `the retry was served on a fresh ${where}`, io4)
        : result(
            ID,
            'MRTR-ANY-INSTANCE',
            'fail',
            `the retry sent to a fresh ${where} got ${refusal(elsewhere)}; it was served on the connection that started the round`,
            io4,
          ),
    ];
  } finally {
    await fresh.close();
  }
}
