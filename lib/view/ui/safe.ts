/**
 * What the page makes of values it did not write. A cassette or a replay report may come from
 * anyone (a file someone sent), so every string in it is text: Preact puts children in text
 * nodes and attributes through setAttribute, never HTML. What remains to guard is where a value
 * becomes more than text: a link's target (a `javascript:` URL runs on click), a class or an id
 * (they steer the page's styles and its labels), a number the page formats.
 */
import { SPEC_ROOT } from '../../spec-pages.js';

/** The spec's site (the host every rule links to, lib/spec-pages.ts) and its repository. */
const SPEC_SITE = new URL(SPEC_ROOT).hostname;
const SPEC_REPO = '/modelcontextprotocol/modelcontextprotocol';

/** `link` when it may be a link: http(s) to the spec's site or its GitHub repository, no user
 * name, password or port; undefined otherwise (the page shows it as text). */
export function specHref(link: unknown): string | undefined {
  if (typeof link !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password || url.port) return undefined;
  const host = url.hostname.toLowerCase();
  const spec = host === SPEC_SITE || (host === 'github.com' && (url.pathname === SPEC_REPO || url.pathname.startsWith(`${SPEC_REPO}/`)));
  return spec ? url.href : undefined;
}

/** `value` when it is one of `known`, else `fallback`: for class names made of data. */
export function oneOf<T extends string>(value: unknown, known: readonly T[], fallback: T): T {
  return known.includes(value as T) ? (value as T) : fallback;
}

/** A value a report says is text, as text (a report is not checked against its schema). */
export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/** A finite number, or undefined. */
export function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export const SEVERITIES = ['error', 'warning', 'info'] as const;
