/** The page's requests to its server: every one carries the token of the page's own URL. */
export const token = new URLSearchParams(location.search).get('token') ?? '';

export async function getJson<T>(path: string, params: Record<string, string | number> = {}): Promise<T> {
  const q = new URLSearchParams({ ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])), token });
  const res = await fetch(`${path}?${q}`);
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/** Live views: calls `onChange` whenever the server says something new arrived. */
export function listen(onChange: () => void): () => void {
  const es = new EventSource(`api/events?token=${encodeURIComponent(token)}`);
  es.addEventListener('change', onChange);
  return () => es.close();
}
