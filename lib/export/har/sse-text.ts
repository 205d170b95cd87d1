/**
 * One SSE event as event-stream text, the form `export --format har` writes into a response's
 * `content.text` and `import --from har` writes back into the journal it folds. Fields in the
 * order id, event, retry, data; a data value with line ends becomes several `data:` lines (the
 * event-stream rules join them with LF again), so the event's data reads back exactly.
 */
export interface SseEventFields {
  id?: string;
  event?: string;
  retry?: number;
  data: string;
}

export function sseEventText(e: SseEventFields): string {
  let out = '';
  if (e.id !== undefined) out += `id: ${e.id}\n`;
  if (e.event !== undefined) out += `event: ${e.event}\n`;
  if (e.retry !== undefined) out += `retry: ${e.retry}\n`;
  for (const line of e.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}
