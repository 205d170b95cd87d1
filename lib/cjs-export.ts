/**
 * A named export of a CommonJS package loaded with `await import()`: Node's loader puts it on the
 * module namespace, the bundle (dist/bin/, esbuild) only on `default` (module.exports). pino,
 * pino-pretty and undici are loaded this way, on first use.
 */
export function cjsExport<T>(mod: unknown, name: string): T {
  const m = mod as Record<string, unknown> & { default?: Record<string, unknown> };
  return (m[name] ?? m.default?.[name]) as T;
}
