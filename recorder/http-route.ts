/**
 * Where the HTTP recording proxy sends a request, and whether its Host and Origin pass. Clients use
 * one path, one Host and one Origin all along: each is worked out once, not per request (URL
 * parsing and the Host/Origin check were a visible share of the proxy's time).
 */
import { checkHostAndOrigin, type GuardOptions } from '../lib/loopback-guard.js';

export interface Route {
  path: string;
  mcp: boolean;
  origin: string;
  upstreamPath: string;
}

/** The last route and the last Host/Origin verdict, kept until a request differs. */
export class RouteCache {
  #route: Route | undefined;
  #guarded: { host: string | undefined; origin: string | undefined; verdict: string | undefined } | undefined;

  constructor(
    private readonly upstream: URL,
    private readonly allowed: GuardOptions,
  ) {}

  routeOf(path: string): Route {
    if (this.#route?.path !== path) {
      const url = new URL(path, this.upstream);
      this.#route = {
        path,
        mcp: new URL(path, 'http://proxy').pathname === this.upstream.pathname,
        origin: url.origin,
        upstreamPath: url.pathname + url.search,
      };
    }
    return this.#route;
  }

  /** Why the request is refused (403), or undefined when its Host and Origin pass. */
  guardOf(host: string | undefined, origin: string | undefined): string | undefined {
    const g = this.#guarded;
    if (!g || g.host !== host || g.origin !== origin)
      this.#guarded = { host, origin, verdict: checkHostAndOrigin(host, origin, this.allowed) };
    return this.#guarded!.verdict;
  }
}
