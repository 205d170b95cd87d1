/**
 * Judges what the player saw: each recorded request's live answer (toResult, with paged listings
 * compared as one list: pageResult), each replayed GET and DELETE (exchangeResult), progress per
 * request and the other notifications per method as sequences.
 */
import { DEEP_TEXT } from '../lib/json-depth.js';
import { diffJson, isObject } from './diff.js';
import { normalise, patternsFor, pointer, variedMasks, type IgnorePattern, type MaskNotes } from './normalise.js';
import { asWholeList, recordedItems, withoutList, type LiveListing, type PagePlan } from './pagination.js';
import { carryRedactions } from '../lib/masked-values.js';
import { progressTokenOf } from '../lib/progress-token.js';
import { jsonOf, key, pushTo, worst, type ExchangeStep, type Interaction, type Json, type PlayOptions } from './play-model.js';
import type { Difference, InteractionResult } from './types.js';
import { judgeResponse } from './verdicts/index.js';

/** A replayed GET or DELETE: its status, and for a GET what came on its stream, compared with
 * the recording (notifications per method as a sequence, like the session's; server→client
 * requests by count, their content being judged where they are answered). */
export function exchangeResult(
  x: ExchangeStep,
  cut: boolean,
  options: PlayOptions,
  recordedRequests: ReadonlyMap<string, number>,
  liveRequests: ReadonlyMap<string, number>,
): InteractionResult {
  const base = { seq: 0, method: x.method, name: x.method === 'GET' ? 'listen stream' : 'session end', exchange: x.exchange.id };
  if (x.skipped) return { ...base, outcome: 'skipped', differences: [], note: x.skipped };
  if (!x.answer) return { ...base, outcome: 'skipped', differences: [], note: x.notSent ?? 'not sent: the replay stopped before it' };
  const differences = [...x.extra];
  if (x.method === 'GET' && !cut) {
    const notifications = (list: Json[]) => list.filter((j) => !('id' in j));
    differences.push(...compareNotifications(notifications(x.recorded.map(jsonOf)), notifications(x.live), options, 'on the GET stream'));
    const count = (list: Json[]) => {
      const m = new Map<string, number>();
      for (const j of list) if ('id' in j) m.set(String(j.method), (m.get(String(j.method)) ?? 0) + 1);
      return m;
    };
    const rec = count(x.recorded.map(jsonOf));
    const live = count(x.live);
    for (const [method, n] of rec) {
      const got = live.get(method) ?? 0;
      // One that came on another stream instead was answered all the same: a client answers a
      // server request wherever it arrives.
      if (got < n && (liveRequests.get(method) ?? 0) < (recordedRequests.get(method) ?? 0)) {
        differences.push({
          verdict: 'warning',
          kind: 'server-request-missing',
          path: '',
          message: `${method} on the GET stream: ${n} recorded, ${got} live (the server no longer sends it)`,
          recorded: n,
          live: got,
        });
      }
    }
  }
  const outcome = worst(differences) ?? 'same';
  return { ...base, outcome, differences, durationMs: Math.round(((x.doneAt ?? 0) - (x.sentAt ?? 0)) * 10) / 10 };
}

/** Progress notifications by token (as JSON text), in order. */
export function progressByToken(list: Json[]): Map<string, Json[]> {
  const out = new Map<string, Json[]>();
  for (const n of list) if (n.method === 'notifications/progress' && isObject(n.params)) pushTo(out, key(n.params.progressToken), n);
  return out;
}

export function toResult(
  it: Interaction,
  recordedN: Map<string, Json[]>,
  liveN: Map<string, Json[]>,
  options: PlayOptions,
  context: { revision?: string },
): InteractionResult {
  const base = { seq: it.recorded.seq, method: it.method, ...(it.name !== undefined ? { name: it.name } : {}) };
  if (it.skipped) return { ...base, outcome: 'skipped', differences: [], note: it.skipped };
  if (it.liveId === undefined && !it.merged)
    return { ...base, outcome: 'skipped', differences: [], note: it.notSent ?? 'not sent: the replay stopped before it' };
  if (!it.recordedResponse)
    return {
      ...base,
      outcome: 'skipped',
      differences: it.extra,
      note: 'the recording has no answer to compare with (the session ended or the request was cancelled)',
    };
  const ignore = ignoreFor(it, options);
  const listing = it.page ? options.memory.live.get(it.page.listing) : undefined;
  if (it.page && listing && !listing.broken && (it.live || it.merged)) return pageResult(it, it.page, listing, base, ignore, context);
  if (!it.live) return { ...base, outcome: 'unanswered', differences: [], note: 'the live server did not answer' };
  // What the cassette holds redacted is masked on the live side too: it cannot be compared.
  const live = carryRedactions(jsonOf(it.recordedResponse), it.live);
  const asked = it.method === 'initialize' ? jsonOf(it.recorded).params : undefined;
  const judging = isObject(asked) && typeof asked.protocolVersion === 'string' ? { ...context, requested: asked.protocolVersion } : context;
  const compared = compareSides(jsonOf(it.recordedResponse), live, ignore);
  const { recordedAnswer, liveAnswer, recordedMasks, liveMasks, skipped, unmatched } = compared;
  options.observe?.({
    ...base,
    index: it.index,
    recorded: recordedAnswer,
    live: liveAnswer,
    raw: { recorded: jsonOf(it.recordedResponse), live },
  });
  const masked = variedMasks(recordedMasks, liveMasks);
  const differences = [
    ...judgeResponse(it.method, recordedAnswer, liveAnswer, judging).map((d) => withTemplateNote(d, unmatched)),
    ...it.extra,
  ];
  const token = progressTokenOf(jsonOf(it.recorded));
  if (token !== undefined) {
    const recorded = recordedN.get(key(token)) ?? [];
    // The request's patterns, and those scoped to progress notifications (with a name: this request's).
    const progressIgnore = [
      ...patternsFor(options.ignore, it.method, it.name),
      ...options.ignore.filter((p) => p.method === 'notifications/progress' && (p.name === undefined || p.name === it.name)),
    ];
    const rec = recorded.map((n) => normalise(n.params, progressIgnore));
    const lp = (liveN.get(key(token)) ?? []).map((n, i) => normalise(carryRedactions(recorded[i]?.params, n.params), progressIgnore));
    const changes = diffJson(rec, lp, ['progress']);
    if (changes.length) {
      differences.push({
        verdict: 'warning',
        kind: 'progress-changed',
        path: '',
        message: `progress notifications changed: ${rec.length} recorded, ${lp.length} live${changes.length && rec.length === lp.length ? ' (values differ)' : ''}`,
        recorded: rec,
        live: lp,
      });
    }
  }
  const outcome = worst(differences) ?? 'same';
  return {
    ...base,
    outcome,
    differences,
    durationMs: durationOf(it),
    ...(skipped.size ? { volatileSkipped: skipped.size } : {}),
    ...(masked.length ? { masked } : {}),
  };
}

/**
 * Both answers normalised. A calibrated template that holds one side's value and not the other's
 * is dropped for that path and both are normalised again, so the difference shows the two texts
 * (not a placeholder against a text); `unmatched` names those paths and their templates.
 */
function compareSides(recorded: unknown, live: unknown, ignore: IgnorePattern[]) {
  const run = (patterns: IgnorePattern[]) => {
    const recordedHits = new Set<string>();
    const liveHits = new Set<string>();
    const recordedMasks: MaskNotes = new Map();
    const liveMasks: MaskNotes = new Map();
    const recordedAnswer = normalise(recorded, patterns, recordedHits, recordedMasks);
    const liveAnswer = normalise(live, patterns, liveHits, liveMasks);
    return { recordedAnswer, liveAnswer, recordedMasks, liveMasks, recordedHits, liveHits };
  };
  const first = run(ignore);
  const oneSided = [...first.recordedHits].filter((p) => !first.liveHits.has(p));
  oneSided.push(...[...first.liveHits].filter((p) => !first.recordedHits.has(p)));
  const unmatched = new Map<string, string>();
  const templated = ignore.filter((p) => p.template && oneSided.includes(pointer(p.segments)));
  for (const p of templated) unmatched.set(pointer(p.segments), p.template!.source);
  const done = templated.length ? run(ignore.filter((p) => !templated.includes(p))) : first;
  const skipped = new Set([...done.recordedHits, ...done.liveHits]);
  return { ...done, skipped, unmatched };
}

/** A difference at a path whose calibrated template the live value no longer fits says so. */
function withTemplateNote(d: Difference, unmatched: ReadonlyMap<string, string>): Difference {
  const source = unmatched.get(d.path);
  if (source === undefined) return d;
  const shown = source.length > 80 ? `${source.slice(0, 79)}…` : source;
  return { ...d, message: `${d.message} (one side no longer fits the calibrated template "${shown}")` };
}

const durationOf = (it: Interaction) => Math.round(((it.doneAt ?? 0) - (it.sentAt ?? 0)) * 10) / 10;

/** The ignore patterns for one interaction's answer: global ones, those scoped to its method and
 * name, and the paths calibration found volatile for it (while it is still the same request). */
function ignoreFor(it: Interaction, options: PlayOptions): IgnorePattern[] {
  const scoped = patternsFor(options.ignore, it.method, it.name);
  const volatile = options.volatile?.get(it.index);
  return volatile && volatile.method === it.method && volatile.name === it.name ? [...scoped, ...volatile.patterns] : scoped;
}

/** A page of a listing the recorded client read to the end: its items are judged as one list on
 * the listing's last page; the other pages compare only what is not the list. */
function pageResult(
  it: Interaction,
  page: PagePlan,
  state: LiveListing,
  base: Pick<InteractionResult, 'seq' | 'method' | 'name'>,
  ignore: IgnorePattern[],
  context: { revision?: string },
): InteractionResult {
  const { listing } = page;
  const field = listing.field;
  const lastSeq = listing.requests.at(-1)!.seq;
  const skipped = new Set<string>();
  const judge = (recorded: unknown, live: unknown) =>
    judgeResponse(it.method, normalise(recorded, ignore, skipped), normalise(carryRedactions(recorded, live), ignore, skipped), context);
  const timing = it.liveId !== undefined ? { durationMs: durationOf(it) } : {};
  const notSent = 'this page was not sent: the live server had listed everything in fewer pages';
  const counted = () => (skipped.size ? { volatileSkipped: skipped.size } : {});
  if (!page.last) {
    if (it.merged) return { ...base, outcome: 'same', differences: [], note: `${notSent}; the whole list is compared at #${lastSeq}` };
    const differences = [...judge(withoutList(jsonOf(it.recordedResponse!), field), withoutList(it.live, field)), ...it.extra];
    return {
      ...base,
      outcome: worst(differences) ?? 'same',
      differences,
      note: `page ${page.index + 1} of a listing; its items are compared as one list at #${lastSeq}`,
      ...timing,
      ...counted(),
    };
  }
  const recorded = asWholeList(jsonOf(it.recordedResponse!), field, recordedItems(listing));
  const live = asWholeList(it.live ?? { result: state.lastResult }, field, state.items);
  const differences = [...judge(recorded, live), ...it.extra];
  const paged = listing.requests.length > 1 || state.pages > 1;
  const note = paged
    ? `the whole listing compared as one list (${listing.requests.length} recorded page(s), ${state.pages} live)${it.merged ? `; ${notSent}` : ''}`
    : undefined;
  return { ...base, outcome: worst(differences) ?? 'same', differences, ...(note ? { note } : {}), ...timing, ...counted() };
}

/** Notifications other than progress (log messages, list_changed, resource updates), compared per
 * method as a sequence: their timing relative to answers is not deterministic, their content is. */
export function compareNotifications(recorded: Json[], live: Json[], options: PlayOptions, where?: string): Difference[] {
  const group = (list: Json[]) => {
    const m = new Map<string, unknown[]>();
    for (const n of list) {
      if (n.method === 'notifications/progress') continue;
      // A notification nested too deep to walk is compared as its text (its stand-in's params
      // are null), so a change deep inside it is still a change.
      pushTo(m, String(n.method), typeof n[DEEP_TEXT] === 'string' ? { [DEEP_TEXT]: n[DEEP_TEXT] } : (n.params ?? null));
    }
    return m;
  };
  const rawR = group(recorded);
  const rawL = group(live);
  // A pattern scoped to a notification's method applies to that method's notifications.
  const r = new Map([...rawR].map(([method, list]) => [method, list.map((p) => normalise(p, patternsFor(options.ignore, method)))]));
  const l = new Map(
    [...rawL].map(([method, list]) => [
      method,
      list.map((p, i) => normalise(carryRedactions(rawR.get(method)?.[i], p), patternsFor(options.ignore, method))),
    ]),
  );
  const out: Difference[] = [];
  for (const method of new Set([...r.keys(), ...l.keys()])) {
    const rs = r.get(method) ?? [];
    const ls = l.get(method) ?? [];
    const changes = diffJson(rs, ls, [method]);
    if (!changes.length) continue;
    out.push({
      verdict: 'warning',
      kind: 'notifications-changed',
      path: '',
      message: `${method}${where ? ` ${where}` : ''}: ${rs.length === ls.length ? 'content changed' : `${rs.length} recorded, ${ls.length} live`}`,
      recorded: rs,
      live: ls,
    });
  }
  return out;
}
