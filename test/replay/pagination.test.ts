import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayCassette } from '../../replay/index.js';
import type { InteractionResult, ReplayResult } from '../../replay/index.js';
import { node } from '../helpers/paths.js';
import { recordHttpTargetCassette, recordTargetCassette, replayTarget, startHttpTarget } from './target-client.js';
import { removeDir } from '../helpers/tmp.js';

// A new build may page its lists differently (page size, cursors) without listing anything else.
// Recorded from replay-target paging resources/list one resource a page (three pages, random
// cursors), replayed against builds that page two or three a page, and the reverse.
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-pages-'));
const threePages = join(dir, 'three-pages.cassette.json');
const onePage = join(dir, 'one-page.cassette.json');
const http = join(dir, 'http.cassette.json');
test.before(async () => {
  await recordTargetCassette(threePages);
  await recordTargetCassette(onePage, { serverArgs: ['--resource-page-size', '3'] });
  await recordHttpTargetCassette(http);
});
test.after.always(() => removeDir(dir));

const replay = (cassette: string, serverArgs: string[]) =>
  replayCassette(cassette, { command: [node, replayTarget, ...serverArgs], config: false, timeoutMs: 5000 });
const listings = (r: ReplayResult): InteractionResult[] =>
  r.sessions.flatMap((s) => s.interactions.filter((i) => i.method === 'resources/list'));
const differences = (r: ReplayResult) =>
  r.sessions.flatMap((s) => s.interactions.flatMap((i) => i.differences.map((d) => `${i.method}: ${d.verdict} ${d.kind}`)));

test('fewer live pages: the pages the live server no longer needs are not sent, the items are compared as one list', async (t) => {
  for (const size of ['2', '3']) {
    const r = await replay(threePages, ['--resource-page-size', size]);
    t.is(r.error, undefined);
    t.deepEqual(differences(r), [], `page size ${size}`);
    t.is(r.outcome, 'passed');
    const pages = listings(r);
    // Two sessions (both eras), three recorded pages each.
    t.is(pages.length, 6);
    t.true(pages.every((i) => i.outcome === 'same'));
    const last = pages.filter((i) => /whole listing compared as one list \(3 recorded page\(s\), (\d) live\)/.test(i.note ?? ''));
    t.is(last.length, 2, `the last page of each listing carries the comparison (page size ${size})`);
    t.true(last.every((i) => i.note!.includes(`${size === '2' ? 2 : 1} live`)));
    const notSent = pages.filter((i) => i.note?.includes('not sent: the live server had listed everything in fewer pages'));
    t.is(notSent.length, size === '2' ? 2 : 4);
  }
});

test('more live pages: replay follows the live cursors past the recorded end and compares the whole list', async (t) => {
  const r = await replay(onePage, []);
  t.is(r.error, undefined);
  t.deepEqual(differences(r), []);
  const pages = listings(r);
  t.is(pages.length, 2);
  for (const p of pages) t.regex(p.note ?? '', /whole listing compared as one list \(1 recorded page\(s\), 3 live\)/);
});

test('a real change in a paged list is reported once, not page by page', async (t) => {
  // A build that pages two a page and has one tool more: the resource pages line up differently
  // with the recorded ones, yet the only difference is the new tool, never a resource added or removed.
  const r = await replay(threePages, ['--resource-page-size', '2', '--regression', 'tool-added']);
  t.deepEqual(
    differences(r).filter((d) => d.startsWith('resources/list')),
    [],
  );
  t.deepEqual([...new Set(differences(r))], ['tools/list: compatible tool-added']);
});

test('over stateless Streamable HTTP each page is a session of its own: the listing is followed across them', async (t) => {
  for (const size of ['2', '3']) {
    const { url, child } = await startHttpTarget(t, ['--resource-page-size', size]);
    try {
      const r = await replayCassette(http, { url, config: false, timeoutMs: 5000 });
      t.is(r.error, undefined);
      t.deepEqual(differences(r), [], `page size ${size}`);
      t.is(r.outcome, 'passed');
      t.true(listings(r).some((i) => /whole listing compared as one list \(3 recorded page\(s\), \d live\)/.test(i.note ?? '')));
    } finally {
      child.kill('SIGKILL');
    }
  }
});
