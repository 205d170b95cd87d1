import { EventEmitter } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionContext } from 'ava';

export interface Alert {
  text: string;
  violation: { rule: string; path: string; seq: number; session: string };
}

export interface HookRequest {
  alert: Alert;
  res: ServerResponse;
}

/** A real alert webhook on 127.0.0.1 whose answers the test decides: at once, late, never, or
 * with an error. `until` waits for an event (a request came, an answer went), never for time. */
export interface TestWebhook {
  url: string;
  requests: HookRequest[];
  /** Requests answered so far. */
  answered: number;
  /** Answers `r` with `status` (and counts it). */
  answer(r: HookRequest, status: number): void;
  /** Resolves once `predicate` holds (checked now and after each request and answer). */
  until(predicate: () => boolean): Promise<void>;
}

export async function startWebhook(t: ExecutionContext, onRequest: (r: HookRequest, hook: TestWebhook) => void): Promise<TestWebhook> {
  const events = new EventEmitter();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const r = { alert: JSON.parse(body) as Alert, res };
      hook.requests.push(r);
      onRequest(r, hook);
      events.emit('change');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const hook: TestWebhook = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`,
    requests: [],
    answered: 0,
    answer(r, status) {
      r.res.writeHead(status).end();
      hook.answered += 1;
      events.emit('change');
    },
    until(predicate) {
      return new Promise((resolve) => {
        const check = (): void => {
          if (!predicate()) return;
          events.off('change', check);
          resolve();
        };
        events.on('change', check);
        check();
      });
    },
  };
  return hook;
}

/** A URL on 127.0.0.1 where nothing listens (connection refused): a port just freed. */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}/alerts`;
}

/** The pino records of a run's stderr (other lines skipped). */
export function logRecords(stderr: string): Record<string, unknown>[] {
  return stderr.split('\n').flatMap((l) => {
    try {
      const o = JSON.parse(l) as unknown;
      return o && typeof o === 'object' ? [o as Record<string, unknown>] : [];
    } catch {
      return [];
    }
  });
}
