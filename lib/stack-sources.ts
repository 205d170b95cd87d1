import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A stack trace with the bundle's positions (dist/bin/chunk-*.js) mapped back to the modules they
 * came from, when the build left the bundle's source maps beside it (a checkout's build does; the
 * package leaves them out for size, and its traces name the bundle's files and functions). For
 * the one place a trace is shown: our internal error (exit 70), which asks to be reported.
 */
export function sourceStack(stack: string): string {
  const maps = new Map<string, SourceMap | undefined>();
  return stack.replace(/(file:\/\/[^\s()]+\/dist\/bin\/[^\s():]+\.js):(\d+):(\d+)/g, (whole, url: string, line: string, col: string) => {
    let map = maps.get(url);
    if (!maps.has(url)) {
      map = load(url);
      maps.set(url, map);
    }
    const at = map?.findEntry(Number(line) - 1, Number(col) - 1) as
      | { originalSource?: string; originalLine?: number; originalColumn?: number }
      | undefined;
    if (!at?.originalSource) return whole;
    const source = at.originalSource.startsWith('file:')
      ? fileURLToPath(at.originalSource)
      : resolve(dirname(fileURLToPath(url)), at.originalSource);
    return `${source}:${(at.originalLine ?? 0) + 1}:${(at.originalColumn ?? 0) + 1}`;
  });
}

function load(url: string): SourceMap | undefined {
  try {
    const path = `${fileURLToPath(url)}.map`;
    return existsSync(path)
      ? new SourceMap(JSON.parse(readFileSync(path, 'utf8')) as ConstructorParameters<typeof SourceMap>[0])
      : undefined;
  } catch {
    return undefined;
  }
}
