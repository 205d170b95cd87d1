/** A replay report (replay --report json=FILE): each session's interactions with their verdict,
 * and each difference with the recorded and the live value side by side. */
import { html } from 'htm/preact';
import { finite, oneOf, text } from './safe.js';
import type { Difference, ReplayReport, ReplaySession } from './types.js';

const VALUE_CAP = 20_000;

function shown(v: unknown): string {
  if (v === undefined) return '(absent)';
  const text = JSON.stringify(v, null, 2) ?? String(v);
  return text.length > VALUE_CAP ? `${text.slice(0, VALUE_CAP)}… (${text.length} characters)` : text;
}

/** The verdicts and outcomes replay writes (replay/replay-report.schema.json), the only words a
 * class may take from a report. */
const VERDICTS = ['passed', 'same', 'breaking', 'changed', 'warning', 'compatible', 'skipped', 'unanswered', 'error', 'other'] as const;

function verdictClass(v: unknown): string {
  return `verdict-${oneOf(v, VERDICTS, 'other')}`;
}

function ms(v: unknown, digits: number): string {
  const n = finite(v);
  return n === undefined ? '' : `${n.toFixed(digits)} ms`;
}

function DifferenceView({ d }: { d: Difference }) {
  return html`<li class=${`difference ${verdictClass(d.verdict)}`}>
    <p><span class="verdict">${text(d.verdict)}</span> <strong>${text(d.kind)}</strong> <code>${text(d.path) || '(whole)'}</code> ${text(d.message)}</p>
    <div class="side-by-side">
      <figure><figcaption>recorded</figcaption><pre class="recorded">${shown(d.recorded)}</pre></figure>
      <figure><figcaption>live</figcaption><pre class="live">${shown(d.live)}</pre></figure>
    </div>
  </li>`;
}

/** `at`: the session's place in the report, for its heading's id (the report's own index is data). */
function SessionReplay({ s, at }: { s: ReplaySession; at: number }) {
  const interactions = Array.isArray(s.interactions) ? s.interactions : [];
  return html`<section class="replay-session" aria-labelledby=${`replay-${at}`}>
    <h2 id=${`replay-${at}`}>Session ${text(s.index)}${s.label ? ` (${text(s.label)})` : ''}: <span class=${`verdict ${verdictClass(s.outcome)}`}>${text(s.outcome)}</span></h2>
    <p>${text(s.transport)}, revision ${text(s.revision) || 'unknown'}, <small>${text(s.id)}</small></p>
    ${s.error ? html`<p class="error">${text(s.error.code)}: ${text(s.error.message)}</p>` : null}
    ${s.note ? html`<p>${text(s.note)}</p>` : null}
    <table>
      <caption>Interactions of session ${text(s.index)}</caption>
      <thead><tr><th scope="col">seq</th><th scope="col">method</th><th scope="col">verdict</th><th scope="col">time</th><th scope="col">differences</th></tr></thead>
      <tbody>
        ${interactions.map(
          (i) => html`<tr class=${verdictClass(i.outcome)}>
            <td>${text(i.seq)}</td><td>${text(i.method)}${i.name ? ` ${text(i.name)}` : ''}</td>
            <td><span class=${`verdict ${verdictClass(i.outcome)}`}>${text(i.outcome)}</span></td>
            <td>${ms(i.durationMs, 1)}</td>
            <td>${Array.isArray(i.differences) && i.differences.length ? html`<ul class="differences">${i.differences.map((d) => html`<${DifferenceView} d=${d} />`)}</ul>` : text(i.note)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

export function ReplayView({ report: r }: { report: ReplayReport }) {
  const command = r.target?.command;
  const target = Array.isArray(command) ? command.map(text).join(' ') : text(r.target?.url);
  const n = r.summary;
  return html`<div class="replay">
    <section aria-labelledby="replay-title">
      <h2 id="replay-title">Replay: <span class=${`verdict ${verdictClass(r.outcome)}`}>${text(r.outcome)}</span></h2>
      <dl class="summary">
        <dt>cassette</dt><dd><code>${text(r.cassette)}</code></dd>
        <dt>target</dt><dd><code>${target}</code></dd>
        <dt>started</dt><dd>${text(r.startedAt)}, ${ms(r.durationMs, 0)}</dd>
        <dt>interactions</dt><dd>${text(n.interactions)}: ${text(n.same)} same, ${text(n.breaking)} breaking, ${text(n.changed ?? 0)} changed, ${text(n.warning)} warning, ${text(n.compatible)} compatible</dd>
      </dl>
      ${r.error ? html`<p class="error">${text(r.error.code)}: ${text(r.error.message)}</p>` : null}
    </section>
    ${r.sessions.map((s, at) => html`<${SessionReplay} key=${at} s=${s} at=${at} />`)}
  </div>`;
}
