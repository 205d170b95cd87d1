/**
 * One node of a message's JSON, for the page's viewer: the page opens a message collapsed and asks
 * for each node it expands, a page of children at a time, so a 50 MB message is walked on the
 * server and only what is on screen crosses to the browser.
 */
import type { RecordedMessage } from '../message.js';
import { pointerKeys, pointerToken } from '../json-pointer.js';
import { isObject } from '../plain-object.js';

export type NodeType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null' | 'raw';

export interface ChildView {
  key: string;
  pointer: string;
  type: NodeType;
  /** Members of an object, items of an array, characters of a string. */
  size?: number;
  /** The value, for numbers, booleans, null and strings up to PREVIEW_CHARS; else a cut. */
  preview?: string;
}

export interface NodeView {
  pointer: string;
  type: NodeType;
  size?: number;
  /** A page of children (objects and arrays) from `offset`. */
  children?: ChildView[];
  /** A piece of a string (or of a frame that is not JSON) from `offset`. */
  text?: string;
  offset: number;
  /** How many children or characters there are in all. */
  total: number;
}

/** Children per page of an expanded node: the page shows at most this many, then "more". */
export const CHILDREN_PAGE = 200;
/** Characters of a string per page. */
export const TEXT_PAGE = 64 * 1024;
const PREVIEW_CHARS = 200;

function typeOf(v: unknown): NodeType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (isObject(v)) return 'object';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  return 'null';
}

function childOf(key: string, pointer: string, v: unknown): ChildView {
  const type = typeOf(v);
  const child: ChildView = { key, pointer: `${pointer}/${pointerToken(key)}`, type };
  if (type === 'array') child.size = (v as unknown[]).length;
  else if (type === 'object') child.size = Object.keys(v as object).length;
  else if (type === 'string') {
    const s = v as string;
    child.size = s.length;
    child.preview = JSON.stringify(s.length > PREVIEW_CHARS ? s.slice(0, PREVIEW_CHARS) : s);
  } else child.preview = JSON.stringify(v);
  return child;
}

/** The message's value that the viewer walks: its JSON, or its text when it has none (a log
 * line, a frame too deep to parse). */
function rootOf(m: RecordedMessage): { value: unknown; raw: boolean } {
  if (m.json !== undefined && !m.tooDeep) return { value: m.json, raw: false };
  if (m.rawBase64 !== undefined) return { value: `<${m.bytes} bytes, not UTF-8, base64:> ${m.rawBase64}`, raw: true };
  return { value: m.raw ?? '', raw: true };
}

/** The node at `pointer` of the message, or undefined when the pointer names nothing there. */
export function nodeAt(m: RecordedMessage, pointer: string, offset = 0): NodeView | undefined {
  const root = rootOf(m);
  let v = root.value;
  if (pointer !== '') {
    if (root.raw) return undefined;
    for (const k of pointerKeys(pointer)) {
      if (Array.isArray(v)) v = /^\d+$/.test(k) ? v[Number(k)] : undefined;
      else if (isObject(v) && Object.hasOwn(v, k)) v = v[k];
      else return undefined;
      if (v === undefined) return undefined;
    }
  }
  const type = root.raw ? 'raw' : typeOf(v);
  const from = Math.max(0, Math.floor(offset));
  if (typeof v === 'string') {
    return { pointer, type, size: v.length, text: v.slice(from, from + TEXT_PAGE), offset: from, total: v.length };
  }
  if (Array.isArray(v)) {
    const children: ChildView[] = [];
    for (let i = from; i < Math.min(v.length, from + CHILDREN_PAGE); i++) children.push(childOf(String(i), pointer, v[i]));
    return { pointer, type, size: v.length, children, offset: from, total: v.length };
  }
  if (isObject(v)) {
    const keys = Object.keys(v);
    const children = keys.slice(from, from + CHILDREN_PAGE).map((k) => childOf(k, pointer, v[k]));
    return { pointer, type, size: keys.length, children, offset: from, total: keys.length };
  }
  return { pointer, type, text: JSON.stringify(v), offset: 0, total: 1 };
}
