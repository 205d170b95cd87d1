import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdirSync, unlinkSync, writeSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers/tmp.js';
import { startTappedUpstream } from '../../helpers/http-taps.js';
import { runV1HttpScenario } from '../../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';
import { cassetteFiles, journalsIn, logLine, readJson, startDirRecorder, until } from './dir-helpers.js';

/** A 1 MB tmpfs: a real file system that fills up. Needs root (CI runs as root). */
function mountSmallFs(t: import('ava').ExecutionContext, at: string): boolean {
  mkdirSync(at);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', at], { stdio: 'ignore' });
    return true;
  } catch {
    t.log('cannot mount a small tmpfs here (needs root); the full-disk test is skipped');
    return false;
  }
}

/** Writes zeros into `path` until the file system refuses (ENOSPC). */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(4096);
  try {
    for (;;) writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}

test('a full disk never stops traffic: recording pauses with an alert and a count of what was not recorded, then resumes by itself', async (t) => {
  const mnt = join(tempDir(t), 'small');
  if (!mountSmallFs(t, mnt)) return t.pass();
  t.teardown(() => execFileSync('umount', ['-l', mnt], { stdio: 'ignore' }));
  const dir = join(mnt, 'cassettes');
  const upstream = await startTappedUpstream(t, v1SessionfulHandler());
  const proxy = await startDirRecorder(t, upstream.url, dir);
  const filler = join(mnt, 'filler');
  const phases: Record<'before' | 'full' | 'after', string[]> = { before: [], full: [], after: [] };
  await runV1HttpScenario(proxy.url, async (client) => {
    const call = async (phase: keyof typeof phases, n: number): Promise<void> => {
      const r = (await client.callTool({ name: 'add', arguments: { a: n, b: 0.5 } })) as { content: { text: string }[] };
      t.is(r.content[0]!.text, String(n + 0.5), 'every answer reaches the client');
      phases[phase].push(r.content[0]!.text);
    };
    for (let n = 0; n < 5; n++) await call('before', n);
    fill(filler);
    for (let n = 100; n < 120; n++) await call('full', n);
    // The alert (logs are written asynchronously, so it may trail the answers a little).
    await until(() => /recording paused/.test(proxy.stderr()), 'the alert');
    unlinkSync(filler);
    // Recording tries again on the next write a second after the last try; go on until it has.
    let n = 200;
    while (!/recording resumed/.test(proxy.stderr())) await call('full', n++);
    for (let m = 300; m < 305; m++) await call('after', m);
    return {};
  });
  const end = await proxy.stop();
  t.is(end.code, 0, end.stderr);
  await until(() => journalsIn(dir).length === 0, 'the folds');
  const stopped = logLine(end.stderr, 'recording stopped') as {
    pauses: number;
    paused: boolean;
    messagesNotRecorded: number;
    bytesNotRecorded: number;
  };
  t.is(stopped.pauses, 1);
  t.false(stopped.paused);
  t.true(stopped.bytesNotRecorded > 0);
  const texts = new Set(
    cassetteFiles(dir).flatMap((f) =>
      readJson(f).sessions.flatMap((s) =>
        s.messages.map((m) => (m.json as { result?: { content?: { text?: string }[] } }).result?.content?.[0]?.text),
      ),
    ),
  );
  t.deepEqual(
    phases.before.filter((a) => !texts.has(a)),
    [],
    'what came before the disk filled is recorded',
  );
  t.deepEqual(
    phases.after.filter((a) => !texts.has(a)),
    [],
    'what came after it resumed is recorded',
  );
  // The journal's last page had room for a few more records before writes failed.
  const lost = phases.full.filter((a) => !texts.has(a)).length;
  t.true(lost >= 10, `${lost} answers not recorded while the disk was full`);
  t.true(stopped.messagesNotRecorded >= 2 * lost - 2, `${stopped.messagesNotRecorded} messages counted as not recorded`);
  const resumed = logLine(end.stderr, 'recording resumed') as { messagesNotRecorded: number };
  t.true(resumed.messagesNotRecorded > 0);
});
