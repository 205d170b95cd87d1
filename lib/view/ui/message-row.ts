/** One message of the timeline: a button that opens its details (pairing, violations, HTTP
 * exchange, the lazy JSON viewer). Arrow keys move between rows (timeline.ts). */
import { html } from 'htm/preact';
import { JsonViewer } from './json-viewer.js';
import { finite, oneOf, SEVERITIES, specHref } from './safe.js';
import type { HttpExchange, MessageRow, ViolationView } from './types.js';

function arrow(r: MessageRow): string {
  if (r.channel === 'stderr') return 'ERR';
  return r.direction === 'client-to-server' ? 'C→S' : 'S→C';
}

function worst(vs: ViolationView[]): string | undefined {
  return vs.find((v) => v.severity === 'error')
    ? 'error'
    : vs.find((v) => v.severity === 'warning')
      ? 'warning'
      : vs[0]
        ? 'info'
        : undefined;
}

/** The spec link of a violation: a link only to the spec's own pages (safe.ts), else its text. */
function SpecLink({ spec }: { spec: string }) {
  const href = specHref(spec);
  return href
    ? html`<a href=${href} target="_blank" rel="noopener noreferrer">spec</a>`
    : html`<span class="spec-text" title="not a page of the MCP specification, so not a link">spec: ${spec}</span>`;
}

/** What a row's classes may say (the rest of a row is text). */
const KINDS = ['request', 'notification', 'response', 'error', 'batch', 'non-jsonrpc', 'text'] as const;
const DIRECTIONS = ['client-to-server', 'server-to-client'] as const;

export function Violations({ list }: { list: ViolationView[] }) {
  return html`<ul class="violations">
    ${list.map(
      (v) => html`<li class=${`violation sev-${oneOf(v.severity, SEVERITIES, 'info')}`}>
        <span class="sev">${v.severity}</span> <strong class="rule">${v.rule}</strong>
        <span class="vmsg">${v.message}</span>
        ${v.evidence === 'masked' ? html`<span class="vnote" title="the recorder masked this value before it reached the cassette">seen live; evidence masked</span>` : null}
        <code class="vpath" title="JSON Pointer inside the message">${v.path || '(whole message)'}</code>
        <${SpecLink} spec=${v.spec} />
      </li>`,
    )}
  </ul>`;
}

function Headers({ title, headers }: { title: string; headers?: Record<string, string | string[]> }) {
  if (!headers) return null;
  return html`<details><summary>${title}</summary><dl class="headers">
    ${Object.entries(headers).map(([k, v]) => html`<dt>${k}</dt><dd>${Array.isArray(v) ? v.join(', ') : v}</dd>`)}
  </dl></details>`;
}

export function ExchangeInfo({ x }: { x: HttpExchange }) {
  return html`<div class="exchange">
    <span>HTTP #${x.id}: ${x.method} ${x.path} → <strong>${x.status ?? '-'}</strong> ${x.outcome === 'complete' ? '' : x.outcome}</span>
    ${x.endT !== undefined ? html` <span>${(x.endT - x.t).toFixed(1)} ms</span>` : null}
    <${Headers} title="request headers" headers=${x.requestHeaders} />
    <${Headers} title="response headers" headers=${x.responseHeaders} />
  </div>`;
}

export interface RowProps {
  row: MessageRow;
  session: number;
  maxLatency: number;
  open: boolean;
  exchange?: HttpExchange;
  onToggle: () => void;
  onJump: (seq: number) => void;
}

export function MessageRowView({ row: r, session, maxLatency, open, exchange, onToggle, onJump }: RowProps) {
  const sev = worst(r.violations);
  const label = r.method ? `${r.method}${r.name ? ` ${r.name}` : ''}` : r.kind;
  const width = finite(r.latencyMs !== undefined && maxLatency > 0 ? Math.max(2, (r.latencyMs / maxLatency) * 100) : 0) ?? 0;
  const kind = oneOf(r.kind, KINDS, 'text');
  return html`<li class=${`row dir-${oneOf(r.direction, DIRECTIONS, 'client-to-server')} kind-${kind}${sev ? ` has-${sev}` : ''}${r.serverRequest ? ' server-request' : ''}`} data-seq=${r.seq}>
    <button class="row-head" aria-expanded=${open} onClick=${onToggle}>
      <span class="seq">#${r.seq}</span>
      <span class="t">${r.t.toFixed(1)} ms</span>
      <span class="dir">${arrow(r)}</span>
      <span class=${`kind kind-${kind}`}>${r.serverRequest ? 'server request' : r.kind}</span>
      <span class="method">${label}</span>
      ${
        r.latencyMs !== undefined
          ? html`<span class="latency" title=${`${r.latencyMs.toFixed(1)} ms`}><span class="bar" style=${`width:${width}%`}></span>${r.latencyMs.toFixed(1)} ms</span>`
          : html`<span class="latency"></span>`
      }
      <span class="http">${r.exchange !== undefined ? `HTTP #${r.exchange}${exchange?.status ? ` ${exchange.status}` : ''}` : ''}</span>
      <span>${sev ? html`<span class=${`badge sev-${sev}`}>${r.violations.length} ${r.violations.length === 1 ? 'violation' : 'violations'}</span>` : null}</span>
      <span class="preview">${r.preview}</span>
    </button>
    ${
      open
        ? html`<div class="row-body">
          ${
            r.pair !== undefined
              ? html`<p>${r.kind === 'request' ? 'answered by' : 'answers'} <button class="link" onClick=${() => onJump(r.pair!)}>#${r.pair}</button>
                ${r.latencyMs !== undefined ? ` after ${r.latencyMs.toFixed(1)} ms` : ''}</p>`
              : r.kind === 'request'
                ? html`<p>no answer recorded</p>`
                : null
          }
          <p>${r.bytes} bytes on ${r.channel}${r.part ? ` (${r.part})` : ''}</p>
          ${r.violations.length ? html`<${Violations} list=${r.violations} />` : null}
          ${exchange ? html`<${ExchangeInfo} x=${exchange} />` : null}
          <${JsonViewer} session=${session} seq=${r.seq} marks=${r.violations.map((v) => v.path)} />
        </div>`
        : null
    }
  </li>`;
}
