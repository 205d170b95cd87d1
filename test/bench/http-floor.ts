#!/usr/bin/env node
/** The reference floor for an HTTP proxy: node:http forwarding each request over a keep-alive
 * agent and piping the answer back, nothing else. `node http-floor.js <upstream origin>` */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

const upstream = new URL(process.argv[2]!);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const server = createServer((req, res) => {
  const up = request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
    (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    },
  );
  up.on('error', () => res.destroy());
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}\n`),
);
// Exit normally on SIGTERM, so that `--cpu-prof` (BENCH_CPU_PROF) can write its profile.
process.on('SIGTERM', () => process.exit(0));
