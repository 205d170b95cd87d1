/** The timeline's filters: by method, tool, rule and severity, each a labelled select. */
import { html } from 'htm/preact';
import type { MessageRow } from './types.js';

export interface FilterState {
  method: string;
  tool: string;
  rule: string;
  severity: string;
}

export const NO_FILTER: FilterState = { method: '', tool: '', rule: '', severity: '' };

export function matches(r: MessageRow, f: FilterState): boolean {
  if (f.method && r.method !== f.method) return false;
  if (f.tool && r.name !== f.tool) return false;
  if (f.rule && !r.violations.some((v) => v.rule === f.rule)) return false;
  if (f.severity && !r.violations.some((v) => v.severity === f.severity)) return false;
  return true;
}

function distinct(values: (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => v !== undefined))].sort();
}

function Select({
  id,
  label,
  value,
  options,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  options: string[];
  onChange: (v: string) => void;
}) {
  return html`<span class="filter">
    <label for=${id}>${label}</label>
    <select id=${id} value=${value} onChange=${(e: Event) => onChange((e.target as HTMLSelectElement).value)}>
      <option value="">all</option>
      ${options.map((o) => html`<option value=${o}>${o}</option>`)}
    </select>
  </span>`;
}

export function Filters({ rows, value, onChange }: { rows: MessageRow[]; value: FilterState; onChange: (f: FilterState) => void }) {
  const rules = distinct(rows.flatMap((r) => r.violations.map((v) => v.rule)));
  return html`<form class="filters" role="search" aria-label="Filter messages" onSubmit=${(e: Event) => e.preventDefault()}>
    <${Select} id="filter-method" label="Method" value=${value.method} options=${distinct(rows.map((r) => r.method))}
      onChange=${(method: string) => onChange({ ...value, method })} />
    <${Select} id="filter-tool" label="Tool" value=${value.tool} options=${distinct(rows.map((r) => r.name))}
      onChange=${(tool: string) => onChange({ ...value, tool })} />
    <${Select} id="filter-rule" label="Rule" value=${value.rule} options=${rules} onChange=${(rule: string) => onChange({ ...value, rule })} />
    <${Select} id="filter-severity" label="Severity" value=${value.severity} options=${['error', 'warning', 'info']}
      onChange=${(severity: string) => onChange({ ...value, severity })} />
  </form>`;
}
