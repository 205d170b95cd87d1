/**
 * What makes the before/after outputs of test/refactor/ depend on the machine rather than on the
 * code: where the checkout, the example cassettes and the scratch folder lie. Each such path is
 * replaced by a token (`<root>`, `EXAMPLES`, `BUILD`, `TMP`) wherever it is printed: as a plain
 * path, inside a JSON string (backslashes doubled on Windows), and as a `file:` URL (the SARIF
 * `helpUri`). On Windows the separators of the rest of such a path become `/`, so a golden taken
 * on one OS compares with a run on another. Times, pids, ports and ids are the replay tool's own
 * business (replay-reports-run.ts `scrubText`): `validate` and `rules` print none.
 */
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Replaces every printed form of `path` in `text` by `token`. */
export function replacePath(text: string, path: string, token: string): string {
  const paths = new Set<string>();
  try {
    paths.add(realpathSync(path)); // macOS: /var/folders/… is /private/var/folders/…; first, as the longer
  } catch {
    // a path that does not exist (yet) is only printed as given
  }
  paths.add(path);
  let out = text;
  for (const p of paths) {
    out = out.replaceAll(pathToFileURL(p).href, `file://${token}`);
    out = out.replaceAll(JSON.stringify(p).slice(1, -1), token);
    out = out.replaceAll(p, token);
  }
  if (sep !== '\\') return out;
  // Windows: `<token>\dir\file` (or `\\` in JSON) → `<token>/dir/file`.
  const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return out.replace(
    new RegExp(`${escaped}((?:\\\\{1,2}[^\\\\/\\s"'\`<>|*?]+)+)`, 'g'),
    (_m, tail: string) => `${token}${tail.replace(/\\{1,2}/g, '/')}`,
  );
}
