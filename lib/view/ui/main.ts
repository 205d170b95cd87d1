/** The view's page: a header, the sessions in a nav, the chosen session's timeline (or the replay
 * report) in main. A live view (record --ui) refreshes on each server-sent `change`. */
import { html } from 'htm/preact';
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { getJson, listen } from './api.js';
import { ReplayView } from './replay-view.js';
import { Timeline } from './timeline.js';
import type { Overview, SessionDetail, SessionView } from './types.js';
import './app.css';

function SessionNav({ sessions, current, onPick }: { sessions: SessionView[]; current: number; onPick: (i: number) => void }) {
  return html`<nav aria-label="Sessions">
    <h2>Sessions</h2>
    ${sessions.length === 0 ? html`<p>no sessions yet</p>` : null}
    <ul>
      ${sessions.map(
        (s) => html`<li key=${s.index}>
          <button class=${`session${s.errors ? ' has-error' : s.violations ? ' has-warning' : ''}`} aria-current=${s.index === current ? 'true' : undefined}
            onClick=${() => onPick(s.index)}>
            <strong>#${s.index + 1}${s.label ? ` ${s.label}` : ''}</strong> ${s.transport} ${s.revision ?? ''}
            <br /><small>${s.client ?? '?'} → ${s.server ?? '?'}</small>
            <br /><small>${s.messages} message${s.messages === 1 ? '' : 's'}${s.durationMs !== undefined ? `, ${Math.round(s.durationMs)} ms` : ''}${s.violations !== undefined ? `, ${s.violations} violation${s.violations === 1 ? '' : 's'}` : ''}</small>
          </button>
        </li>`,
      )}
    </ul>
  </nav>`;
}

/** What the server put in the page (view-server.ts): the overview and the first session, so
 * the first paint shows it without waiting on a request. */
function initial(): { overview?: Overview; current?: number; detail?: SessionDetail } {
  const text = document.getElementById('initial')?.textContent;
  try {
    return text ? (JSON.parse(text) as { overview?: Overview; current?: number; detail?: SessionDetail }) : {};
  } catch {
    return {};
  }
}

const FIRST = initial();

function App() {
  const [overview, setOverview] = useState<Overview | undefined>(FIRST.overview);
  const [current, setCurrent] = useState(FIRST.current ?? 0);
  /** A live view follows the newest session until one is picked. */
  const picked = useRef(false);
  const [detail, setDetail] = useState<SessionDetail | undefined>(FIRST.detail);
  const [error, setError] = useState<string | undefined>();
  const refresh = useCallback(async (index: number) => {
    try {
      const o = await getJson<Overview>('api/overview');
      setOverview(o);
      if (o.kind === 'live' && !picked.current && o.sessions.length - 1 > index) {
        setCurrent(o.sessions.length - 1);
        return;
      }
      if (o.kind !== 'replay' && o.sessions.length > index) setDetail(await getJson<SessionDetail>('api/session', { i: index }));
    } catch (err) {
      setError((err as Error).message);
    }
  }, []);
  useEffect(() => {
    void refresh(current);
  }, [current]);
  useEffect(() => (overview?.kind === 'live' ? listen(() => void refresh(current)) : undefined), [overview?.kind, current]);
  const live = overview?.kind === 'live' ? overview : undefined;
  return html`<header>
      <h1>mcp-cassette ${live ? 'live view' : 'view'}</h1>
      <p class="source">${overview?.title ?? ''}${live ? ` (last ${live.capacity} messages kept${live.dropped ? `, ${live.dropped} older dropped` : ''})` : ''}</p>
    </header>
    ${
      overview && overview.kind !== 'replay'
        ? html`<${SessionNav} sessions=${overview.sessions} current=${current} onPick=${(i: number) => {
            picked.current = true;
            setCurrent(i);
          }} />`
        : null
    }
    <main>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${!overview && !error ? html`<p aria-busy="true">loading…</p>` : null}
      ${overview?.kind === 'replay' ? html`<${ReplayView} report=${overview.report} />` : null}
      ${overview && overview.kind !== 'replay' && detail ? html`<${Timeline} detail=${detail} />` : null}
    </main>`;
}

render(html`<${App} />`, document.getElementById('app')!);
