/**
 * Paged listings (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`)
 * replayed as what they are: one list, cut into pages by the server. Page size and cursors are
 * the server's business (spec 2025-11-25, utilities/pagination: "The page size is determined by
 * the server", cursors are opaque), so a new build may page differently without changing what it
 * lists. Replay therefore follows the live server's cursors, not the recorded ones: a recorded page
 * the live server no longer needs is not sent, and where the live list goes on after the recorded
 * one ended, replay asks for the remaining pages itself. The items of every page are then compared
 * as one list, on the recorded listing's last page; its other pages compare only what is not the
 * list (`_meta`, `resultType`…).
 *
 * Only listings the recording read to the end are judged this way (the client followed every
 * `nextCursor` until there was none); a listing the client stopped early is compared page by page.
 * Over stateless Streamable HTTP each page is a session of its own, so listings are planned over
 * the whole cassette and their live state lives in the replay's shared memory.
 */
import type { RecordedSession } from '../lib/cassette/cassette.js';
import type { RecordedMessage } from '../lib/message.js';
import { isObject } from './diff.js';

type Json = Record<string, unknown>;

/** The list each paginated method answers with. */
export const LIST_FIELDS: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

/** Most pages replay fetches beyond the recorded ones for one listing: a server whose cursors
 * never end must not keep a replay busy forever. */
export const MAX_EXTRA_PAGES = 1000;

/** One listing as recorded: its page requests and their answers, in order. */
export interface Listing {
  method: string;
  field: string;
  requests: RecordedMessage[];
  responses: RecordedMessage[];
}

export interface PagePlan {
  listing: Listing;
  /** 0 for the first page. */
  index: number;
  last: boolean;
}

/** What the live server has listed so far for one recorded listing. */
export interface LiveListing {
  items: unknown[];
  /** The live `nextCursor` of the newest live page; `undefined` once the live list ended. */
  next?: unknown;
  /** A live page answered with an error (or without the list): the listing is compared page by page from there. */
  broken: boolean;
  /** How many live pages answered so far. */
  pages: number;
  /** The newest live page's result, for what is not the list. */
  lastResult?: Json;
  /** Cursors already followed, so a server that hands out a cursor twice ends the walk. */
  seen: Set<string>;
}

const key = (v: unknown) => JSON.stringify(v);
const resultOf = (m: RecordedMessage | undefined): Json | undefined =>
  m && isObject(m.json) && isObject(m.json.result) ? m.json.result : undefined;

/** Every listing of the cassette that the recorded client read to the end, by page request. */
export function planListings(sessions: readonly RecordedSession[]): Map<RecordedMessage, PagePlan> {
  const byNext = new Map<string, Listing>();
  const listings: Listing[] = [];
  for (const session of sessions) {
    const open = new Map<string, RecordedMessage>();
    for (const m of session.messages) {
      if (!isObject(m.json)) continue;
      const j = m.json;
      if (m.direction === 'client-to-server' && m.kind === 'request' && typeof j.method === 'string' && j.method in LIST_FIELDS) {
        open.set(key(j.id), m);
        continue;
      }
      if (m.direction !== 'server-to-client' || (m.kind !== 'response' && m.kind !== 'error')) continue;
      const request = open.get(key(j.id));
      if (!request) continue;
      open.delete(key(j.id));
      const method = String((request.json as Json).method);
      const params = (request.json as Json).params;
      const cursor = isObject(params) ? params.cursor : undefined;
      let listing: Listing | undefined;
      if (cursor === undefined) {
        listing = { method, field: LIST_FIELDS[method]!, requests: [], responses: [] };
        listings.push(listing);
      } else {
        listing = byNext.get(`${method} ${key(cursor)}`);
        if (!listing) continue;
      }
      listing.requests.push(request);
      listing.responses.push(m);
      const next = resultOf(m)?.nextCursor;
      if (next !== undefined) byNext.set(`${method} ${key(next)}`, listing);
    }
  }
  const plans = new Map<RecordedMessage, PagePlan>();
  for (const listing of listings) {
    const last = resultOf(listing.responses.at(-1));
    const complete = listing.responses.every((r) => resultOf(r) !== undefined) && last !== undefined && last.nextCursor === undefined;
    if (!complete) continue;
    listing.requests.forEach((request, index) => plans.set(request, { listing, index, last: index === listing.requests.length - 1 }));
  }
  return plans;
}

export function newLiveListing(): LiveListing {
  return { items: [], broken: false, pages: 0, seen: new Set() };
}

/** Takes one live page of `listing` into `state`. */
export function takeLivePage(state: LiveListing, field: string, answer: Json): void {
  const result = isObject(answer.result) ? answer.result : undefined;
  if (!result || !Array.isArray(result[field])) {
    state.broken = true;
    return;
  }
  state.pages += 1;
  state.items.push(...(result[field] as unknown[]));
  state.lastResult = result;
  const next = result.nextCursor;
  if (next === undefined || state.seen.has(key(next))) {
    state.next = undefined;
    return;
  }
  state.seen.add(key(next));
  state.next = next;
}

/** The recorded items of the whole listing, in page order. */
export function recordedItems(listing: Listing): unknown[] {
  return listing.responses.flatMap((r) => {
    const list = resultOf(r)?.[listing.field];
    return Array.isArray(list) ? list : [];
  });
}

/** A page's answer without its list and cursor: what the other pages of a listing still compare. */
export function withoutList(message: unknown, field: string): unknown {
  if (!isObject(message) || !isObject(message.result)) return message;
  const { [field]: _list, nextCursor: _next, ...rest } = message.result;
  return { ...message, result: rest };
}

/** The whole listing as one answer: the recorded last page's (or the newest live page's) other
 * fields, with every page's items. */
export function asWholeList(page: unknown, field: string, items: unknown[]): Json {
  const result = isObject(page) && isObject(page.result) ? page.result : {};
  const { nextCursor: _next, ...rest } = result;
  return { result: { ...rest, [field]: items } };
}
