/** RULES.md §3: statelessness (STATE). Both are recording rules: each `check` is empty, they judge the sessions of one recording together (validators/recording.ts). */
import type { ListFact, SessionDigest } from '../session-digest.js';
import type { RecordingRule } from '../rule.js';
import { LIST_KEYS } from '../session-state.js';
import { READ_ONLY } from './support/known-lists.js';

/** A list asked again this soon, with nothing in between, should get the same answer. */
const RELIST_WINDOW_MS = 10_000;

/** STATE-STDIO-LIFETIME: this many short processes in a row, each at most this many calls. */
const LIFETIME_RUN = 3;

const SHORT_CONVERSATION = 10;

/** What a conversation does with a server (as opposed to discovering it). */
const CONVERSATION = new Set(['tools/call', 'prompts/get', 'resources/read', 'completion/complete']);

/** The items two list answers disagree on, as sets (order is TOOLS-LIST-ORDER's). */
function difference(before: ListFact, now: ListFact): string[] {
  const added = [...now.items.keys()].filter((k) => !before.items.has(k));
  const removed = [...before.items.keys()].filter((k) => !now.items.has(k));
  const changed = [...now.items.keys()].filter((k) => before.items.has(k) && before.items.get(k) !== now.items.get(k));
  return [
    added.length ? `added ${added.join(', ')}` : '',
    removed.length ? `removed ${removed.join(', ')}` : '',
    changed.length ? `changed ${changed.join(', ')}` : '',
  ].filter(Boolean);
}

/** A stdio process the client started for one short conversation and then closed itself. */
function shortConversation(s: SessionDigest): boolean {
  const calls = s.requests.filter((r) => CONVERSATION.has(r.method)).length;
  return (
    s.client !== undefined &&
    s.end?.initiatedBy === 'host-eof' &&
    s.requests[0]?.method === 'server/discover' &&
    s.requests.every((r) => r.era === 'modern') &&
    calls >= 1 &&
    calls <= SHORT_CONVERSATION
  );
}

export const stateRules: RecordingRule[] = [
  {
    // The per-connection part of the list invariance, between sessions (within one session it is
    // TOOLS-/RES-/PROMPTS-LIST-INVARIANT's). The conservative reading: only Streamable HTTP
    // 2026-07-28, where one server serves every session of a run (a stdio process's lists depend
    // on its environment, which a cassette does not record, so processes are never compared);
    // only the same question (method and params, _meta included) with the same credentials as far
    // as the recording shows (masked tokens all look alike, so exchanges with credentials are
    // never compared) and the same serverInfo; only complete one-page answers from sessions whose
    // own answers did not vary; and only when nothing could have changed the list in between: no
    // request other than list, discovery, listen or completion in flight anywhere in the run, no
    // list_changed, and the later question asked within 10 s. Order-only differences are
    // TOOLS-LIST-ORDER's and not compared here.
    id: 'STATE-LIST-INVARIANT',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    transport: 'streamable-http',
    source: 'server/tools.mdx §Capabilities; server/resources.mdx §Capabilities; server/prompts.mdx §Capabilities',
    title: 'The same list question gets the same answer on every connection (lists vary only with authorization)',
    on: [],
    check() {},
    checkRecording(sessions, report) {
      const answers = sessions
        .flatMap((s) => [...s.lists.values()].filter((l) => l.complete && l.stable && l.request.era === 'modern').map((l) => ({ s, l })))
        .sort((a, b) => a.l.t - b.l.t);
      const busy = sessions.flatMap((s) =>
        s.requests.filter((r) => !READ_ONLY.has(r.method)).map((r) => [r.t, r.endT ?? Infinity] as const),
      );
      const changed = sessions.flatMap((s) => s.listChanged);
      answers.forEach((b, i) => {
        const who = b.l.request.credentials;
        if (who === undefined) return;
        // The latest earlier answer to the same question, from another session.
        let a: (typeof answers)[number] | undefined;
        for (let j = i - 1; j >= 0 && !a; j--) {
          const c = answers[j]!;
          if (
            c.s !== b.s &&
            c.l.method === b.l.method &&
            c.l.request.question === b.l.request.question &&
            c.l.request.credentials === who &&
            (!c.l.server || !b.l.server || c.l.server === b.l.server)
          )
            a = c;
        }
        if (!a) return;
        const from = Math.min(a.l.request.t, b.l.request.t);
        const to = b.l.t;
        if (b.l.request.t - a.l.t > RELIST_WINDOW_MS) return;
        if (busy.some(([s, e]) => s <= to && e >= from) || changed.some((t) => t >= from && t <= to)) return;
        const parts = difference(a.l, b.l);
        if (parts.length === 0) return;
        report(
          b.l.at,
          `/result/${LIST_KEYS[b.l.method]}`,
          `${b.l.method} answers the same request differently than in session ${a.s.id} (message #${a.l.at.seq}, ${Math.round(b.l.request.t - a.l.t)} ms earlier), with no list_changed and no other request in between: ${parts.join('; ')}; lists must not vary per connection (only with the Authorization presented)`,
        );
      });
    },
  },
  {
    // A heuristic, and reported as info only: test harnesses legitimately start a process per
    // test, which looks the same. Very conservative: 3 processes in a row of one command and one
    // client, none overlapping, each 2026-07-28 only, opened with server/discover, used for 1-10
    // calls (tools/call, prompts/get, resources/read, completion/complete) and then closed by the
    // client itself (stdin closed).
    id: 'STATE-STDIO-LIFETIME',
    level: 'SHOULD NOT',
    obs: 'H',
    era: 'modern',
    transport: 'stdio',
    source: 'basic/index.mdx §Statelessness',
    severity: 'info',
    title: 'The client does not start a stdio process per conversation (heuristic)',
    on: [],
    check() {},
    checkRecording(sessions, report) {
      const groups = new Map<string, SessionDigest[]>();
      for (const s of sessions) {
        const key = `${JSON.stringify(s.target)} ${s.client ?? ''}`;
        groups.set(key, [...(groups.get(key) ?? []), s]);
      }
      for (const group of groups.values()) {
        let run: SessionDigest[] = [];
        for (const s of group.sort((a, b) => a.startT - b.startT)) {
          const prev = run.at(-1);
          if (!shortConversation(s)) run = [];
          else if (prev && s.startT < prev.endT) run = [s];
          else run.push(s);
          if (run.length !== LIFETIME_RUN) continue;
          const call = s.requests.find((r) => CONVERSATION.has(r.method))!;
          report(
            call.at,
            '',
            `${LIFETIME_RUN} stdio processes of this command in a row (sessions ${run.map((r) => r.id).join(', ')}), each started by the client for a few calls and closed by it: if that is a process per conversation, keep one process instead; the stdio process is not a conversation boundary`,
          );
        }
      }
    },
  },
];
