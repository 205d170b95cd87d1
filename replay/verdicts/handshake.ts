/** Verdicts on the handshake: the negotiated revision, capabilities gained and lost, server info. */
import { diffJson, type RawChange } from '../diff.js';
import { pointer } from '../normalise.js';
import type { Difference } from '../types.js';
import { omit } from './tool-calls.js';
import type { Json, JudgeContext } from './index.js';

/**
 * The negotiated revision, judged by what the replayed client asked for and what the spec allows
 * (2025-11-25, basic/lifecycle, Version Negotiation: "If the server supports the requested protocol
 * version, it MUST respond with the same version. Otherwise, the server MUST respond with another
 * protocol version it supports"). Granting exactly what the client asked for is always fine, even
 * where the recorded server counter-offered an older revision; a counter-offer that differs from
 * the recorded answer may be one the client does not speak (it then disconnects), so it breaks.
 */
export function negotiation(r: Json, l: Json, requested: string | undefined): Difference[] {
  if (!('protocolVersion' in r) || r.protocolVersion === l.protocolVersion) return [];
  const base = { path: '/result/protocolVersion', recorded: r.protocolVersion, live: l.protocolVersion };
  if (requested !== undefined && l.protocolVersion === requested) {
    return [
      {
        ...base,
        verdict: 'compatible',
        kind: 'protocol-version-negotiated',
        message: `the server now grants the revision the client asked for, ${requested} (the recorded server counter-offered ${String(r.protocolVersion)})`,
      },
    ];
  }
  const asked = requested !== undefined ? `the client asked for ${requested}; ` : '';
  return [
    {
      ...base,
      verdict: 'breaking',
      kind: 'protocol-version-changed',
      message: `the server no longer negotiates ${String(r.protocolVersion)}: ${asked}it answered ${String(l.protocolVersion)}, which a client that does not speak it refuses`,
    },
  ];
}

/** Capability flags whose loss makes requests fail: a client that subscribed now gets an error. */
const REQUEST_FLAGS = new Set(['subscribe']);

/**
 * One capability difference. A whole capability gone breaks (clients stop using the feature or
 * get errors); one added is compatible. A flag inside one (`listChanged`, `subscribe`) turned off
 * is the same change whether it became `false` or was dropped: losing `subscribe` breaks
 * (resources/subscribe now fails), losing a notification flag is a warning (no more
 * `list_changed`, the lists still answer); a flag turned on is compatible.
 */
function capabilityChange(c: RawChange): Difference[] {
  const path = pointer(c.path);
  const name = c.path.slice(2).join('.');
  const flag = c.path.length > 3 ? c.path.at(-1)! : undefined;
  const on = (v: unknown) => v === true;
  if (
    flag !== undefined &&
    (typeof c.recorded === 'boolean' || typeof c.live === 'boolean' || c.recorded === undefined || c.live === undefined)
  ) {
    if (!on(c.recorded) && on(c.live))
      return [
        {
          verdict: 'compatible',
          kind: 'capability-added',
          path,
          message: `capability ${name} was turned on`,
          recorded: c.recorded,
          live: c.live,
        },
      ];
    if (on(c.recorded) && !on(c.live)) {
      return [
        REQUEST_FLAGS.has(flag)
          ? {
              verdict: 'breaking',
              kind: 'capability-removed',
              path,
              message: `capability ${name} was turned off (clients that use it now get errors)`,
              recorded: c.recorded,
              live: c.live,
            }
          : {
              verdict: 'warning',
              kind: 'capability-changed',
              path,
              message: `capability ${name} was turned off (clients no longer hear of changes)`,
              recorded: c.recorded,
              live: c.live,
            },
      ];
    }
    if (!on(c.recorded) && !on(c.live) && (c.recorded === undefined || c.recorded === false) && (c.live === undefined || c.live === false))
      return []; // off either way
  }
  if (c.type === 'added')
    return [{ verdict: 'compatible', kind: 'capability-added', path, message: `capability ${name} was added`, live: c.live }];
  if (c.type === 'removed')
    return [{ verdict: 'breaking', kind: 'capability-removed', path, message: `capability ${name} was removed`, recorded: c.recorded }];
  return [
    { verdict: 'warning', kind: 'capability-changed', path, message: `capability ${name} changed`, recorded: c.recorded, live: c.live },
  ];
}

export function handshake(r: Json, l: Json, context: JudgeContext): Difference[] {
  const out: Difference[] = [...negotiation(r, l, context.requested)];
  if (Array.isArray(r.supportedVersions)) {
    const live = Array.isArray(l.supportedVersions) ? l.supportedVersions : [];
    const lost = r.supportedVersions.filter((v) => !live.includes(v));
    if (lost.length)
      out.push({
        verdict: 'breaking',
        kind: 'protocol-version-dropped',
        path: '/result/supportedVersions',
        message: `the server no longer supports ${lost.join(', ')}`,
        recorded: r.supportedVersions,
        live: l.supportedVersions,
      });
    const gained = live.filter((v) => !(r.supportedVersions as unknown[]).includes(v));
    if (gained.length)
      out.push({
        verdict: 'compatible',
        kind: 'protocol-version-added',
        path: '/result/supportedVersions',
        message: `the server now also supports ${gained.join(', ')}`,
        recorded: r.supportedVersions,
        live: l.supportedVersions,
      });
  }
  for (const c of diffJson(r.capabilities ?? {}, l.capabilities ?? {}, ['result', 'capabilities'])) out.push(...capabilityChange(c));
  const rest = (o: Json) => omit(omit(omit(o, 'protocolVersion'), 'supportedVersions'), 'capabilities');
  for (const c of diffJson(rest(r), rest(l), ['result'])) {
    const path = pointer(c.path);
    // instructions and serverInfo (name, title, icons) are read by hosts and models, not parsed.
    const soft = c.path[1] === 'instructions' || c.path[1] === 'serverInfo' || c.path.includes('_meta');
    if (c.type === 'added')
      out.push({ verdict: 'compatible', kind: 'handshake-field-added', path, message: `${path} was added`, live: c.live });
    else
      out.push({
        verdict: soft ? 'warning' : 'breaking',
        kind: soft ? 'server-info-changed' : 'handshake-changed',
        path,
        message: `${path} ${c.type === 'removed' ? 'was removed' : 'changed'}`,
        recorded: c.recorded,
        live: c.live,
      });
  }
  return out;
}
