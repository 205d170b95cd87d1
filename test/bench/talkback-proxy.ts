#!/usr/bin/env node
/**
 * talkback (an npm HTTP record/replay proxy) as a peer in the same place as `record --upstream`:
 * `node talkback-proxy.js <upstream endpoint URL> <tapes folder>`. It records a tape per new
 * request (every JSON-RPC request is new: its id differs) and proxies to the upstream; the first
 * stdout line is the endpoint URL to use instead of the upstream's. talkback listens on every
 * interface and has no host option, so `listen` is pinned to loopback here (REAL-PEERS §1.3).
 */
import net from 'node:net';
import talkbackModule from 'talkback';

// talkback is CommonJS (`module.exports = talkback`) with a declaration file that says `export
// default`, so under NodeNext the types see the namespace; the value is the function.
const talkback = talkbackModule as unknown as typeof talkbackModule.default;

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
  if (typeof args[0] === 'number') args.splice(1, typeof args[1] === 'string' ? 1 : 0, '127.0.0.1');
  return (listen as (...a: unknown[]) => net.Server).apply(this, args);
} as typeof listen;

const upstream = new URL(process.argv[2]!);
const server = talkback({
  host: upstream.origin,
  port: 0,
  path: process.argv[3]!,
  record: talkback.Options.RecordMode.NEW,
  silent: true,
  summary: false,
});
const http = await server.start();
const address = http.address() as net.AddressInfo | null;
const print = (a: net.AddressInfo): void => void process.stdout.write(`http://127.0.0.1:${a.port}${upstream.pathname}\n`);
if (address) print(address);
else http.once('listening', () => print(http.address() as net.AddressInfo));
