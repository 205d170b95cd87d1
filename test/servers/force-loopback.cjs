// Preload for peers that listen on every interface with no host option (server-everything's
// streamableHttp mode, REAL-PEERS §1.3): a TCP listen without a host is bound to 127.0.0.1
// instead, in every form net.Server#listen takes (http.Server and express's app.listen call it):
//   listen(), listen(cb), listen(null | undefined, ...), listen(port[, backlog][, cb]) with the
//   port a number or a numeric string (server-everything passes process.env.PORT, a string),
//   listen(port, '' | undefined, ...), and listen({ port, ... }) with no host (or an empty one),
//   port a number, a numeric string, undefined or null.
// Pipes and sockets (a path, a handle, an fd) and an explicit host are left as they are.
// Every TCP server that starts listening says where on stderr, one line:
//   force-loopback: listening on 127.0.0.1:<port>
// so a test can start a peer on port 0 (PORT=0) and read the port the kernel gave it.
const net = require('node:net');

const LOOPBACK = '127.0.0.1';
const listen = net.Server.prototype.listen;

/** Node's own test (net.js isPipeName): a string that is not a non-negative number is a path. */
const isPipeName = (s) => typeof s === 'string' && !(Number(s) >= 0);

/** The arguments to listen with: the same ones, or an options object with the loopback host. */
function loopbackArgs(args) {
  const cb = typeof args[args.length - 1] === 'function' ? args[args.length - 1] : undefined;
  const rest = cb ? args.slice(0, -1) : args;
  const first = rest[0];
  let options;
  if (first !== null && typeof first === 'object') {
    // A handle, an fd or a path; a host of its own; or no port at all (Node rejects that).
    if (first._handle || first.handle || first.fd !== undefined || first.path !== undefined) return args;
    if (first.host || !('port' in first)) return args;
    options = { ...first, host: LOOPBACK, port: first.port ?? 0 };
  } else {
    if (isPipeName(first)) return args;
    if (typeof rest[1] === 'string' && rest[1] !== '') return args; // (port, host, ...)
    const backlog = [rest[1], rest[2]].find((v) => typeof v === 'number');
    options = { port: first ?? 0, host: LOOPBACK, ...(backlog !== undefined ? { backlog } : {}) };
  }
  return cb ? [options, cb] : [options];
}

net.Server.prototype.listen = function (...args) {
  this.once('listening', () => {
    const a = this.address();
    if (a && typeof a === 'object') process.stderr.write(`force-loopback: listening on ${a.address}:${a.port}\n`);
  });
  return listen.apply(this, loopbackArgs(args));
};
