/**
 * How two captures of the same output differ, said so that a reader finds the change: by JSON
 * Pointer when both sides are JSON, else by line. Shared by the before/after tools of
 * test/refactor/ and by outputs.test.ts, which compares the build with the committed goldens.
 */
import { pointer } from '../../validators/walk.js';

/** The differences of one output (a file of a snapshot), each a line to print. */
export interface Difference {
  name: string;
  lines: string[];
}

/** Differences printed per output before the rest are only counted. */
const SHOWN_PER_OUTPUT = 20;

/** The differences, each output's name with its lines indented, the longest lists cut. */
export function formatDifferences(differences: readonly Difference[]): string {
  const out: string[] = [];
  for (const { name, lines } of differences) {
    out.push(name, ...lines.slice(0, SHOWN_PER_OUTPUT).map((l) => `  ${l}`));
    if (lines.length > SHOWN_PER_OUTPUT) out.push(`  … and ${lines.length - SHOWN_PER_OUTPUT} more`);
  }
  return out.map((l) => `${l}\n`).join('');
}

/** The differences of two texts of one output: by JSON Pointer when both parse as JSON. */
export function textDiff(before: string, after: string): string[] {
  if (before === after) return [];
  const a = parseJson(before);
  const b = parseJson(after);
  if (a.ok && b.ok) {
    const out: string[] = [];
    jsonDiff(a.value, b.value, '', out);
    // Equal values, different text (key order, spacing): still a change of output.
    return out.length > 0 ? out : ['same JSON value, different text', ...lineDiff(before, after)];
  }
  return lineDiff(before, after);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const show = (v: unknown): string => {
  const text = v === undefined ? '(absent)' : JSON.stringify(v);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

/** Every place where two JSON values differ, by JSON Pointer, with both sides. */
function jsonDiff(a: unknown, b: unknown, at: string, out: string[]): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${at || '/'}: ${a.length} items → ${b.length} items`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) jsonDiff(a[i], b[i], `${at}/${i}`, out);
    return;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    for (const key of new Set([...ka, ...kb])) {
      jsonDiff((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}${pointer([key])}`, out);
    }
    if (ka.join('\0') !== kb.join('\0') && ka.length === kb.length && ka.every((k) => kb.includes(k)))
      out.push(`${at || '/'}: member order ${ka.join(',')} → ${kb.join(',')}`);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${at || '/'}: ${show(a)} → ${show(b)}`);
}

/** Line by line, after the common start and end: what was there before and what is there now. */
export function lineDiff(before: string, after: string): string[] {
  if (before === after) return [];
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const clip = (line: string): string => (line.length > 200 ? `${line.slice(0, 200)}…` : line);
  return [
    `from line ${start + 1}:`,
    ...a.slice(start, endA).map((l) => `- ${clip(l)}`),
    ...b.slice(start, endB).map((l) => `+ ${clip(l)}`),
  ];
}
