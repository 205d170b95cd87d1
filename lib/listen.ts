import type { Server } from 'node:net';
import { CassetteError } from './errors.js';

/** Listens on host:port, or fails with a CassetteError that names the address and the fix. */
export function listenOn(server: Server, port: number, host: string, option = '--listen'): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => reject(listenError(err, host, port, option));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function listenError(err: NodeJS.ErrnoException, host: string, port: number, option: string): Error {
  const address = `${bracketHost(host)}:${port}`;
  const why =
    err.code === 'EADDRINUSE'
      ? `the address is already in use (another process listens there); stop it, or give another port with ${option} host:port (port 0 picks a free one)`
      : err.code === 'EACCES'
        ? `permission denied (ports below 1024 need privileges); give a port above 1023 with ${option} host:port`
        : err.code === 'EADDRNOTAVAIL'
          ? `this machine has no such address; give one of its own addresses with ${option}, for example 127.0.0.1:${port}`
          : err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN'
            ? `the host name does not resolve; give an address with ${option}, for example 127.0.0.1:${port}`
            : err.message;
  return new CassetteError('MCPC_LISTEN_FAILED', `cannot listen on ${address}: ${why}`, { cause: err });
}

/** A host as written before `:port` (an address, a URL): an IPv6 address goes in brackets. */
export function bracketHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * `host:port`, `[v6]:port` (the host without its brackets) or a bare port (no host), or undefined
 * when the text is none of these: the one reading of every address option (--listen, --ui,
 * --metrics-listen); the callers say what is wrong, in their command's words.
 */
export function splitHostPort(text: string): { host: string | undefined; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(text) ?? /^()()(\d+)$/.exec(text);
  return m ? { host: m[1] || m[2] || undefined, port: Number(m[3]) } : undefined;
}

/** `host:port`, `[v6]:port` or a bare port (on `defaultHost`), or a CassetteError naming `option`. */
export function parseHostPort(text: string, option: string, defaultHost = '127.0.0.1'): { host: string; port: number } {
  const address = splitHostPort(text);
  if (!address || address.port > 65535)
    throw new CassetteError('MCPC_USAGE', `${option} ${JSON.stringify(text)} must be host:port or a port, for example 127.0.0.1:9464`);
  return { host: address.host ?? defaultHost, port: address.port };
}
