/**
 * The security headers of the real `view` CLI on every kind of response, refusals included: the
 * page, its script and stylesheet, the JSON API, the event stream, a 404, a 401 (no or a wrong
 * token) and a 403 (a foreign Host or Origin, `Origin: null`). No browser needed.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import test from 'ava';
import { root } from '../../helpers/paths.js';
import { startView, VIEW_CSP } from '../../helpers/view.js';

const example = join(root, 'cassettes', 'examples', 'example-server-http.cassette.json');

/** A response's status and headers without waiting for its body (the event stream never ends). */
function head(url: URL, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}

test('every response of view, refusals included, carries the CSP, Referrer-Policy: no-referrer, nosniff and no-store', async (t) => {
  const { url } = await startView(t, [example]);
  const token = url.searchParams.get('token')!;
  const at = (path: string, params: Record<string, string> = { token }): URL => {
    const u = new URL(path, url);
    u.search = '';
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u;
  };
  const cases: [string, URL, Record<string, string>, number][] = [
    ['the page', at('/'), {}, 200],
    ['the script', at('/app.js'), {}, 200],
    ['the stylesheet', at('/app.css'), {}, 200],
    ['the overview', at('/api/overview'), {}, 200],
    ['a session', at('/api/session', { token, i: '0' }), {}, 200],
    ['a node', at('/api/node', { token, i: '0', seq: '1', p: '' }), {}, 200],
    ['the event stream', at('/api/events'), {}, 200],
    ['no such session', at('/api/session', { token, i: '999' }), {}, 404],
    ['no such path', at('/nope'), {}, 404],
    ['no token', at('/', {}), {}, 401],
    ['a wrong token', at('/', { token: 'x'.repeat(token.length) }), {}, 401],
    ['a foreign Host', at('/'), { host: `evil.example:${url.port}` }, 403],
    ['a foreign Origin', at('/api/overview'), { origin: 'http://evil.example' }, 403],
    ['Origin null (a sandboxed frame, a file)', at('/api/overview'), { origin: 'null' }, 403],
  ];
  for (const [what, u, headers, status] of cases) {
    const r = await head(u, headers);
    t.is(r.status, status, what);
    t.is(r.headers['content-security-policy'], VIEW_CSP, what);
    t.is(r.headers['referrer-policy'], 'no-referrer', what);
    t.is(r.headers['x-content-type-options'], 'nosniff', what);
    t.is(r.headers['cache-control'], 'no-store', what);
  }
});
