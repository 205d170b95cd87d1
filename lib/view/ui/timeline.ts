/** A session's timeline: its summary, the filters, the messages in order (at most ROW_CAP shown at
 * once, then "show more") and its HTTP exchanges. Keyboard: Tab reaches the list, ArrowUp/ArrowDown
 * (and Home/End) move between messages, Enter or Space opens one. */
import { html } from 'htm/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Filters, matches, NO_FILTER, type FilterState } from './filters.js';
import { ExchangeInfo, MessageRowView, Violations } from './message-row.js';
import type { SessionDetail, SessionView } from './types.js';

const ROW_CAP = 500;

export function SessionSummary({ s }: { s: SessionView }) {
  return html`<dl class="summary">
    <dt>revision</dt><dd>${s.revision ?? 'unknown'}${s.era ? ` (${s.era})` : ''}</dd>
    <dt>transport</dt><dd>${s.transport}</dd>
    <dt>client</dt><dd>${s.client ?? 'unknown'}</dd>
    <dt>server</dt><dd>${s.server ?? 'unknown'}</dd>
    <dt>duration</dt><dd>${s.durationMs !== undefined ? `${Math.round(s.durationMs)} ms` : 'unknown'}</dd>
    <dt>messages</dt><dd>${s.messages} (${Object.entries(s.counts)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ')})</dd>
    <dt>violations</dt><dd>${s.violations === undefined ? 'not recorded' : `${s.violations} (${s.errors ?? 0} errors)`}</dd>
    <dt>target</dt><dd><code>${s.target}</code></dd>
  </dl>`;
}

function onListKey(e: KeyboardEvent): void {
  const heads = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLButtonElement>(':scope > li > .row-head')];
  const at = heads.indexOf(document.activeElement as HTMLButtonElement);
  if (at < 0) return;
  const to = e.key === 'ArrowDown' ? at + 1 : e.key === 'ArrowUp' ? at - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? heads.length - 1 : -2;
  if (to === -2) return;
  e.preventDefault();
  heads[Math.max(0, Math.min(heads.length - 1, to))]?.focus();
}

export function Timeline({ detail }: { detail: SessionDetail }) {
  const [filter, setFilter] = useState<FilterState>(NO_FILTER);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const [cap, setCap] = useState(ROW_CAP);
  useEffect(() => setOpen(new Set()), [detail.session.index]);
  const rows = useMemo(() => detail.rows.filter((r) => matches(r, filter)), [detail, filter]);
  const maxLatency = useMemo(() => Math.max(0, ...detail.rows.map((r) => r.latencyMs ?? 0)), [detail]);
  const exchanges = useMemo(() => new Map(detail.exchanges.map((x) => [x.id, x])), [detail]);
  const toggle = (seq: number): void => {
    const next = new Set(open);
    if (!next.delete(seq)) next.add(seq);
    setOpen(next);
  };
  const jump = (seq: number): void => {
    setFilter(NO_FILTER);
    setOpen(new Set([...open, seq]));
    requestAnimationFrame(() => document.querySelector<HTMLButtonElement>(`li[data-seq="${seq}"] > .row-head`)?.focus());
  };
  const s = detail.session;
  return html`<section aria-labelledby="session-title">
    <h2 id="session-title">Session ${s.index + 1}${s.label ? ` (${s.label})` : ''} <small>${s.id}</small></h2>
    <${SessionSummary} s=${s} />
    <${Filters} rows=${detail.rows} value=${filter} onChange=${(f: FilterState) => setFilter(f)} />
    <p class="count" aria-live="polite">${rows.length} of ${detail.rows.length} messages</p>
    <ol class="timeline" aria-label="Messages" onKeyDown=${onListKey}>
      ${rows.slice(0, cap).map(
        (r) => html`<${MessageRowView} key=${r.seq} row=${r} session=${s.index} maxLatency=${maxLatency} open=${open.has(r.seq)}
          exchange=${r.exchange !== undefined ? exchanges.get(r.exchange) : undefined} onToggle=${() => toggle(r.seq)} onJump=${jump} />`,
      )}
    </ol>
    ${rows.length > cap ? html`<button class="more" onClick=${() => setCap(cap + ROW_CAP)}>show ${Math.min(ROW_CAP, rows.length - cap)} more</button>` : null}
    ${detail.loose.length ? html`<h3>Violations of the whole session</h3><${Violations} list=${detail.loose} />` : null}
    ${
      detail.exchanges.length
        ? html`<h3>HTTP exchanges</h3><ul class="exchanges">${detail.exchanges.map((x) => html`<li key=${x.id}><${ExchangeInfo} x=${x} /></li>`)}</ul>`
        : null
    }
  </section>`;
}
