/** RULES.md §6: resources (RES). */
import { type ExchangeRule, isObject, type Rule } from '../rule.js';
import { filterOf, invariance, listChanged, listenOf, recallSubscriptions, SUBSCRIPTION_LEARNS } from './support/memories.js';
import { BASE64, notification, resultFor, URI } from './support/messages.js';

/** An error message that says the resource does not exist. */
const NOT_FOUND = /\bnot found\b|\bunknown resource\b|\bno such (resource|file)\b|\bdoes ?n[o']t exist\b|\bno resource\b/i;

const INTERNAL = /\binternal (server )?error\b|\bunhandled (exception|error|rejection)\b/i;

const PRIVATE_IP = /^(10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|169\.254\.\d+\.\d+|\[f[cd][0-9a-f]{2}:.*\])$/;

const INTERNAL_HOST = /\.(internal|local|lan|corp|intranet|home\.arpa)$/;

/** Why an https URI cannot be fetched by the client from the web on its own, if it cannot. */
function notOnTheWeb(uri: string): string | undefined {
  if (!/^https:\/\//i.test(uri)) return undefined;
  let host: string;
  try {
    host = new URL(uri).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  if (PRIVATE_IP.test(host)) return 'a private network address';
  if (INTERNAL_HOST.test(host)) return 'an internal host name';
  if (!host.includes('.') && host !== 'localhost' && !host.startsWith('[')) return 'a single-label intranet host name';
  return undefined;
}

export const resourceRules: (Rule | ExchangeRule)[] = [
  invariance('resources/list'),
  {
    id: 'RES-NOTFOUND-NOT-32002',
    level: 'MUST NOT',
    obs: '1',
    era: 'modern',
    source: 'server/resources.mdx §Error Handling',
    title: 'A missing resource is -32602, never -32002, on 2026-07-28',
    on: ['error resources/read'],
    check(o, report) {
      if (o.request?.method === 'resources/read' && o.json && isObject(o.json.error) && o.json.error.code === -32002)
        report('/error/code', 'resources/read answered -32002; 2026-07-28 uses -32602 for a resource that does not exist');
    },
  },
  {
    id: 'RES-NOTFOUND-LEGACY-32002',
    level: 'SHOULD',
    obs: 'N',
    era: 'legacy',
    source: 'server/resources.mdx §Error Handling',
    title: 'A missing resource is answered -32002 on 2025-11-25 and earlier',
    on: ['error resources/read'],
    check(o, report) {
      const e = o.request?.method === 'resources/read' && o.json && isObject(o.json.error) ? o.json.error : undefined;
      if (!e || e.code === -32002 || typeof e.message !== 'string') return;
      // Only an answer that says the resource does not exist: other failures have other codes.
      if (!NOT_FOUND.test(e.message)) return;
      report(
        '/error/code',
        `resources/read of a resource that does not exist ("${e.message.length > 80 ? `${e.message.slice(0, 79)}…` : e.message}") answered ${String(e.code)}; revisions 2025-11-25 and earlier ask for -32002 (Resource not found)`,
      );
    },
  },
  {
    id: 'RES-BLOB-ENC',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'server/resources.mdx §Security Considerations',
    title: 'Binary resource contents are valid base64',
    on: ['result resources/read'],
    check(o, report) {
      const r = resultFor(o, 'resources/read');
      if (!r || !Array.isArray(r.contents)) return;
      r.contents.forEach((c, i) => {
        if (isObject(c) && typeof c.blob === 'string' && !BASE64.test(c.blob))
          report(`/result/contents/${i}/blob`, 'blob is not valid base64');
      });
    },
  },
  {
    id: 'RES-URI-RFC3986',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'server/resources.mdx §Custom URI Schemes',
    title: 'Resource URIs conform to RFC 3986',
    on: ['result resources/list', 'result resources/read'],
    check(o, report) {
      const r = resultFor(o);
      if (!r || (o.request?.method !== 'resources/list' && o.request?.method !== 'resources/read')) return;
      const items = Array.isArray(r.resources) ? r.resources : Array.isArray(r.contents) ? r.contents : [];
      const key = Array.isArray(r.resources) ? 'resources' : 'contents';
      items.forEach((item, i) => {
        if (isObject(item) && typeof item.uri === 'string' && !URI.test(item.uri))
          report(`/result/${key}/${i}/uri`, `${JSON.stringify(item.uri)} is not an RFC 3986 URI (scheme ":" …, no spaces)`);
      });
    },
  },
  {
    id: 'RES-INTERNAL',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    source: 'server/resources.mdx §Error Handling',
    title: 'A resource request that failed internally is answered -32603',
    on: ['error'],
    check(o, report) {
      const method = o.request?.method;
      const e = o.json && isObject(o.json.error) ? o.json.error : undefined;
      if (!e || !method?.startsWith('resources/') || e.code === -32603 || typeof e.message !== 'string') return;
      // Only an error that calls itself internal: other failures may have other codes.
      if (INTERNAL.test(e.message))
        report('/error/code', `${method} failed with "${e.message}" under code ${String(e.code)}; internal errors use -32603`);
    },
  },
  {
    id: 'RES-HTTPS',
    level: 'SHOULD',
    obs: 'H',
    era: 'all',
    source: 'server/resources.mdx §https://',
    title: 'https:// resource URIs are ones the client can fetch from the web itself',
    on: ['result resources/list', 'result resources/read'],
    check(o, report, state) {
      const r = o.json && isObject(o.json.result) ? o.json.result : undefined;
      const method = o.request?.method;
      if (!r || (method !== 'resources/list' && method !== 'resources/read')) return;
      const key = method === 'resources/list' ? 'resources' : 'contents';
      (Array.isArray(r[key]) ? (r[key] as unknown[]) : []).forEach((item, i) => {
        const uri = isObject(item) && typeof item.uri === 'string' ? item.uri : undefined;
        const why = uri ? notOnTheWeb(uri) : undefined;
        if (why && state.once(`res-https:${uri}`))
          report(
            `/result/${key}/${i}/uri`,
            `${uri} is an https URI on ${why}, which a client cannot fetch from the web on its own; use a custom URI scheme and serve it through resources/read`,
          );
      });
    },
  },
  {
    id: 'RES-UPDATED-SCOPE',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/subscriptions.mdx §Opening a Stream',
    title: 'resources/updated only for URIs the subscription listed in resourceSubscriptions',
    on: [...SUBSCRIPTION_LEARNS, 'server-notification notifications/resources/updated'],
    check(o, report, state) {
      recallSubscriptions(o, state);
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/resources/updated') : undefined;
      // Off a listen stream it is SUB-CHANGE-ONLY-ON-LISTEN's or SUB-ID-TAG's.
      const listen = p && typeof p.uri === 'string' ? listenOf(o, state) : undefined;
      if (!listen) return;
      const uri = p!.uri as string;
      const listed = filterOf(listen).resourceSubscriptions;
      const subs = Array.isArray(listed) ? listed.filter((s): s is string => typeof s === 'string') : [];
      // "This might be a sub-resource of the one that the client actually subscribed to."
      if (subs.some((s) => uri.startsWith(s))) return;
      report(
        '/params/uri',
        subs.length
          ? `resources/updated for ${uri}, which is neither one of nor under the subscribed ${subs.join(', ')}`
          : `resources/updated for ${uri} on a subscription that listed no resourceSubscriptions`,
      );
    },
  },
  listChanged('resources', 'RES-LISTCHANGED', 'server/resources.mdx §List Changed Notification'),
];
