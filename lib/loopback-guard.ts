/**
 * DNS-rebinding protection for a listener of our own (the recording proxy's, `serve --listen`): a
 * browser page on evil.example that resolves to 127.0.0.1 sends its own Host and Origin, so both
 * are checked. Clients that are not browsers send no Origin and pass.
 */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export interface GuardOptions {
  /** The host the listener is bound to; accepted in Host when it is not a loopback address. */
  listenHost: string;
  allowHosts: readonly string[];
  allowOrigins: readonly string[];
}

function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Why the request must be refused (403), or undefined when Host and Origin are acceptable. */
export function checkHostAndOrigin(host: string | undefined, origin: string | undefined, options: GuardOptions): string | undefined {
  const hostname = host ? hostnameOf(host) : undefined;
  const allowedHosts = new Set([...LOOPBACK, options.listenHost.toLowerCase(), ...options.allowHosts.map((h) => h.toLowerCase())]);
  if (!hostname || !allowedHosts.has(hostname)) {
    return `Host ${JSON.stringify(host ?? '')} is not allowed (DNS rebinding protection); add --allow-host ${hostname ?? '<name>'} if this is your proxy's own name`;
  }
  if (origin !== undefined) {
    let originHost: string | undefined;
    try {
      const u = new URL(origin);
      originHost = u.protocol === 'http:' || u.protocol === 'https:' ? u.hostname.toLowerCase() : undefined;
    } catch {
      originHost = undefined;
    }
    const explicitly = options.allowOrigins.includes(origin);
    if (!explicitly && (!originHost || !LOOPBACK.has(originHost))) {
      return `Origin ${JSON.stringify(origin)} is not allowed (DNS rebinding protection); add --allow-origin ${origin} to accept it`;
    }
  }
  return undefined;
}
