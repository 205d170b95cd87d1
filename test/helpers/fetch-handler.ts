import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * Mounts a fetch-style handler (`(Request) => Response`) on node:http, streaming the response
 * body as it is produced, for web-standard servers such as tmcp's HTTP transport.
 */
export function fetchHandler(respond: (request: Request) => Promise<Response | null | undefined>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    void (async () => {
      const headers = new Headers();
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const controller = new AbortController();
      res.on('close', () => controller.abort());
      const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        signal: controller.signal,
        ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
      } as RequestInit);
      const response = (await respond(request)) ?? new Response(null, { status: 404 });
      const out: string[] = [];
      response.headers.forEach((value, name) => out.push(name, value));
      res.writeHead(response.status, out);
      res.flushHeaders();
      if (!response.body) {
        res.end();
        return;
      }
      const reader = response.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
        res.end();
      } catch {
        res.destroy();
      }
    })();
  };
}
