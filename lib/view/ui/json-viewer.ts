/**
 * A lazy JSON tree: a message opens collapsed, each node is fetched from the server when it is
 * expanded (GET api/node), a page of at most 200 children (or 64 KB of a string) at a time, so a
 * 50 MB message never crosses to the page whole and never renders more than what was opened.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import type { ChildView, NodeView } from './types.js';

interface Where {
  session: number;
  seq: number;
  /** JSON Pointers of the violations on this message: nodes on their way are marked. */
  marks: readonly string[];
}

function summary(c: { type: string; size?: number; preview?: string }): string {
  if (c.type === 'object') return `{${c.size ?? 0} ${c.size === 1 ? 'key' : 'keys'}}`;
  if (c.type === 'array') return `[${c.size ?? 0} ${c.size === 1 ? 'item' : 'items'}]`;
  if (c.type === 'string' && c.size !== undefined && c.size > 200) return `${c.preview?.slice(0, -1) ?? ''}…" (${c.size} chars)`;
  return c.preview ?? '';
}

function marked(pointer: string, marks: readonly string[]): boolean {
  return marks.some((m) => m === pointer || m.startsWith(`${pointer}/`));
}

async function fetchNode(where: Where, pointer: string, offset: number): Promise<NodeView> {
  return getJson<NodeView>('api/node', { i: where.session, seq: where.seq, p: pointer, offset });
}

function NodeBody({ where, node }: { where: Where; node: NodeView }) {
  const [pages, setPages] = useState<NodeView[]>([node]);
  const last = pages[pages.length - 1]!;
  const shown = last.offset + (last.children?.length ?? last.text?.length ?? 0);
  const more = async (): Promise<void> => {
    const next = await fetchNode(where, node.pointer, shown);
    setPages([...pages, next]);
  };
  const rest = shown < last.total && (last.children || last.type === 'string' || last.type === 'raw');
  return html`<div class="json-body">
    ${pages.map((p) =>
      p.children
        ? html`<ul>${p.children.map((c) => html`<li key=${c.pointer}><${JsonNode} where=${where} child=${c} /></li>`)}</ul>`
        : html`<pre class="json-text">${p.text}</pre>`,
    )}
    ${rest ? html`<button class="more" onClick=${more}>show more (${shown} of ${last.total})</button>` : null}
  </div>`;
}

export function JsonNode({ where, child }: { where: Where; child: ChildView }) {
  const [node, setNode] = useState<NodeView | undefined>();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const expandable = child.type === 'object' || child.type === 'array' || (child.type === 'string' && (child.size ?? 0) > 200);
  const toggle = async (): Promise<void> => {
    if (!open && !node) {
      try {
        setNode(await fetchNode(where, child.pointer, 0));
      } catch (err) {
        setError((err as Error).message);
      }
    }
    setOpen(!open);
  };
  const cls = `json-node type-${child.type}${marked(child.pointer, where.marks) ? ' marked' : ''}`;
  if (!expandable)
    return html`<span class=${cls}><span class="json-key">${child.key}</span>: <span class="json-value">${summary(child)}</span></span>`;
  return html`<span class=${cls}>
    <button class="json-toggle" aria-expanded=${open} onClick=${toggle}>
      <span class="json-key">${child.key}</span>: <span class="json-value">${summary(child)}</span>
    </button>
    ${error ? html`<span class="error">${error}</span>` : null}
    ${open && node ? html`<${NodeBody} where=${where} node=${node} />` : null}
  </span>`;
}

/** The root of a message: opened one level (the envelope is small); deeper nodes wait for a click. */
export function JsonViewer({ session, seq, marks }: { session: number; seq: number; marks: readonly string[] }) {
  const [root, setRoot] = useState<NodeView | undefined>();
  const [error, setError] = useState<string | undefined>();
  const where = { session, seq, marks };
  useEffect(() => {
    fetchNode({ session, seq, marks }, '', 0).then(setRoot, (err: Error) => setError(err.message));
  }, [session, seq]);
  if (error) return html`<p class="error">${error}</p>`;
  if (!root) return html`<p aria-busy="true">loading…</p>`;
  return html`<div class="json-viewer">
    <${NodeBody} where=${where} node=${root} />
  </div>`;
}
