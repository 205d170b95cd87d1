/**
 * The view's HTTP server: the page, its bundle (built into dist/lib/view/ui/ at build time, no
 * CDN) and the JSON the page asks for. Every request must carry the run's random token
 * (`?token=`), and pass the Host/Origin guard of the recording proxy (lib/loopback-guard.ts), so a
 * page of another site cannot read recorded traffic even through DNS rebinding.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CassetteError } from '../errors.js';
import { packageRoot } from '../paths.js';
import { bracketHost, listenOn } from '../listen.js';
import { checkHostAndOrigin } from '../loopback-guard.js';
import { nodeAt } from './json-node.js';
import type { ViewSource } from './view-source.js';

export interface ViewServerOptions {
  host: string;
  port: number;
  /** The option named in a listen error. */
  option?: string;
  /** Fixed token (tests); a random one otherwise. */
  token?: string;
}

export interface ViewServer {
  /** The page's address, token included. */
  url: string;
  token: string;
  server: Server;
  close(): Promise<void>;
}

// The page's files, wherever this module runs from (dist/lib/view/, or the bundle in dist/bin/).
const UI_DIR = pathToFileURL(join(packageRoot, 'dist', 'lib', 'view', 'ui') + '/');

function asset(name: string): Buffer {
  try {
    return readFileSync(fileURLToPath(new URL(name, UI_DIR)));
  } catch (err) {
    throw new CassetteError(
      'MCPC_FILE_UNREADABLE',
      `the view's page ${fileURLToPath(new URL(name, UI_DIR))} is missing; build it with \`npm run build\` (it bundles lib/view/ui/)`,
      { cause: err },
    );
  }
}

/** The page's first data held in the page itself up to this size: past it, the page asks. */
const INLINE_UP_TO = 1024 * 1024;

/**
 * What the page shows first, in the page: the overview and the session it opens on (the newest
 * of a live view), so the first paint shows a session, not an empty pane waiting on a request. A
 * JSON data block, never run (the CSP allows no inline script anyway), with `<` escaped so no
 * text from the cassette can close it.
 */
function initialData(source: ViewSource): string {
  const overview = source.overview();
  const at = overview.kind === 'live' ? overview.sessions.length - 1 : 0;
  const detail = overview.kind !== 'replay' && at >= 0 ? source.session(at) : undefined;
  const text = JSON.stringify({ overview, current: Math.max(at, 0), ...(detail ? { detail } : {}) }).replace(/</g, '\\u003c');
  return text.length > INLINE_UP_TO ? '' : `<script type="application/json" id="initial">${text}</script>`;
}

function page(token: string, source: ViewSource): string {
  const t = encodeURIComponent(token);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>mcp-cassette view</title><link rel="stylesheet" href="app.css?token=${t}"></head>
<body><div id="app"></div>${initialData(source)}<script type="module" src="app.js?token=${t}"></script></body></html>
`;
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

function tokenMatches(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function intParam(url: URL, name: string): number | undefined {
  const v = url.searchParams.get(name);
  return v !== null && /^\d+$/.test(v) ? Number(v) : undefined;
}

function handle(source: ViewSource, token: string, host: string, req: IncomingMessage, res: ServerResponse): void {
  const refused = checkHostAndOrigin(req.headers.host, req.headers.origin, { listenHost: host, allowHosts: [], allowOrigins: [] });
  if (refused) return send(res, 403, 'text/plain; charset=utf-8', refused + '\n');
  const url = new URL(req.url ?? '/', 'http://view.invalid');
  if (!tokenMatches(url.searchParams.get('token'), token))
    return send(res, 401, 'text/plain; charset=utf-8', 'the view needs the token of its URL (?token=...), as printed by the command\n');
  if (req.method !== 'GET') return send(res, 405, 'text/plain; charset=utf-8', 'only GET\n');
  switch (url.pathname) {
    case '/':
      return send(res, 200, 'text/html; charset=utf-8', page(token, source));
    case '/app.js':
      return send(res, 200, 'text/javascript; charset=utf-8', asset('app.js'));
    case '/app.css':
      return send(res, 200, 'text/css; charset=utf-8', asset('app.css'));
    case '/api/overview':
      return json(res, 200, source.overview());
    case '/api/session': {
      const d = source.session(intParam(url, 'i') ?? -1);
      return d ? json(res, 200, d) : json(res, 404, { error: 'no such session' });
    }
    case '/api/node': {
      const m = source.message(intParam(url, 'i') ?? -1, intParam(url, 'seq') ?? -1);
      const node = m && nodeAt(m, url.searchParams.get('p') ?? '', intParam(url, 'offset') ?? 0);
      return node ? json(res, 200, node) : json(res, 404, { error: 'no such message or node' });
    }
    case '/api/events':
      return events(source, req, res);
    default:
      return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  }
}

/** Server-sent events: one `change` event whenever a live source heard something (coalesced to
 * one per 100 ms); the page then asks for what it shows. A cassette never changes. */
function events(source: ViewSource, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream', connection: 'keep-alive' });
  res.write(': mcp-cassette view\n\n');
  if (!source.subscribe) return;
  let timer: NodeJS.Timeout | undefined;
  const unsubscribe = source.subscribe(() => {
    timer ??= setTimeout(() => {
      timer = undefined;
      res.write('event: change\ndata: {}\n\n');
    }, 100);
  });
  req.on('close', () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
  });
}

export async function startViewServer(source: ViewSource, options: ViewServerOptions): Promise<ViewServer> {
  asset('app.js');
  const token = options.token ?? randomBytes(18).toString('base64url');
  const server = createServer((req, res) => {
    try {
      handle(source, token, options.host, req, res);
    } catch (err) {
      if (!res.headersSent) json(res, 500, { error: (err as Error).message });
      else res.destroy();
    }
  });
  await listenOn(server, options.port, options.host, options.option ?? '--listen');
  const address = server.address() as AddressInfo;
  return {
    url: `http://${bracketHost(address.address)}:${address.port}/?token=${token}`,
    token,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
