/** A replay report (replay --report json=FILE): each session's interactions with their verdict,
 * and each difference with the recorded and the live value side by side. */
import { html } from 'htm/preact';
import type { Difference, ReplayReport, ReplaySession } from './types.js';

const VALUE_CAP = 20_000;

function shown(v: unknown): string {
  if (v === undefined) return '(absent)';
  const text = JSON.stringify(v, null, 2) ?? String(v);
  return text.length > VALUE_CAP ? `${text.slice(0, VALUE_CAP)}… (${text.length} characters)` : text;
}

function DifferenceView({ d }: { d: Difference }) {
  return html`<li class=${`difference verdict-${d.verdict}`}>
    <p><span class="verdict">${d.verdict}</span> <strong>${d.kind}</strong> <code>${d.path || '(whole)'}</code> ${d.message}</p>
    <div class="side-by-side">
      <figure><figcaption>recorded</figcaption><pre class="recorded">${shown(d.recorded)}</pre></figure>
      <figure><figcaption>live</figcaption><pre class="live">${shown(d.live)}</pre></figure>
    </div>
  </li>`;
}

function SessionReplay({ s }: { s: ReplaySession }) {
  return html`<section class="replay-session" aria-labelledby=${`replay-${s.index}`}>
    <h2 id=${`replay-${s.index}`}>Session ${s.index}${s.label ? ` (${s.label})` : ''}: <span class=${`verdict verdict-${s.outcome}`}>${s.outcome}</span></h2>
    <p>${s.transport}, revision ${s.revision ?? 'unknown'}, <small>${s.id}</small></p>
    ${s.error ? html`<p class="error">${s.error.code}: ${s.error.message}</p>` : null}
    ${s.note ? html`<p>${s.note}</p>` : null}
    <table>
      <caption>Interactions of session ${s.index}</caption>
      <thead><tr><th scope="col">seq</th><th scope="col">method</th><th scope="col">verdict</th><th scope="col">time</th><th scope="col">differences</th></tr></thead>
      <tbody>
        ${s.interactions.map(
          (i) => html`<tr class=${`verdict-${i.outcome}`}>
            <td>${i.seq}</td><td>${i.method}${i.name ? ` ${i.name}` : ''}</td>
            <td><span class=${`verdict verdict-${i.outcome}`}>${i.outcome}</span></td>
            <td>${i.durationMs !== undefined ? `${i.durationMs.toFixed(1)} ms` : ''}</td>
            <td>${i.differences.length ? html`<ul class="differences">${i.differences.map((d) => html`<${DifferenceView} d=${d} />`)}</ul>` : (i.note ?? '')}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

export function ReplayView({ report: r }: { report: ReplayReport }) {
  const target = r.target.command ? r.target.command.join(' ') : (r.target.url ?? '');
  return html`<div class="replay">
    <section aria-labelledby="replay-title">
      <h2 id="replay-title">Replay: <span class=${`verdict verdict-${r.outcome}`}>${r.outcome}</span></h2>
      <dl class="summary">
        <dt>cassette</dt><dd><code>${r.cassette}</code></dd>
        <dt>target</dt><dd><code>${target}</code></dd>
        <dt>started</dt><dd>${r.startedAt}, ${Math.round(r.durationMs)} ms</dd>
        <dt>interactions</dt><dd>${r.summary.interactions}: ${r.summary.same} same, ${r.summary.breaking} breaking, ${r.summary.changed ?? 0} changed, ${r.summary.warning} warning, ${r.summary.compatible} compatible</dd>
      </dl>
      ${r.error ? html`<p class="error">${r.error.code}: ${r.error.message}</p>` : null}
    </section>
    ${r.sessions.map((s) => html`<${SessionReplay} key=${s.index} s=${s} />`)}
  </div>`;
}
