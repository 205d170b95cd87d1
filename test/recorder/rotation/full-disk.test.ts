import test, { type ExecutionContext } from 'ava';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { startTappedUpstream } from '../../helpers/http-taps.js';
import { runV1HttpScenario } from '../../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';
import { cassetteFiles, journalsIn, logLine, readJson, sample, scrape, startDirRecorder, until } from './dir-helpers.js';

/** A 1 MB tmpfs: a real file system that fills up. Needs root on Linux (CI runs as root). */
function mountSmallFs(at: string): void {
  mkdirSync(at);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', at], { stdio: 'ignore' });
}

/** Why no tmpfs can be mounted here (undefined when one can): tried once, on a scratch folder. */
const noTmpfs: string | undefined = (() => {
  const scratch = mkdtempSync(join(tmpdir(), 'mcp-cassette-mount-'));
  const at = join(scratch, 'probe');
  try {
    mountSmallFs(at);
    execFileSync('umount', [at], { stdio: 'ignore' });
    return undefined;
  } catch {
    const why =
      process.platform !== 'linux' ? 'not Linux' : process.getuid?.() !== 0 ? 'not running as root' : '`mount -t tmpfs` was refused';
    return `cannot mount a tmpfs here (${why})`;
  } finally {
    try {
      rmSync(scratch, { recursive: true, force: true });
    } catch {
      // a probe mount that would not unmount: left for the system's tmp cleaning
    }
  }
})();
const onTmpfs = noTmpfs === undefined ? test : test.skip;
if (noTmpfs)
  console.log(
    `# ${noTmpfs}: the real full-disk test is skipped; run the tests as root on Linux (as CI does) to enable it. The simulated-ENOSPC test still runs.`,
  );

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

/** How the disk fills up and empties again: a real tmpfs, or journal writes made to fail. */
interface FullDisk {
  dir: string;
  fill(): void;
  free(): void;
  recorder: { nodeArgs?: string[]; env?: Record<string, string> };
}

function tmpfsDisk(mnt: string): FullDisk {
  const filler = join(mnt, 'filler');
  return { dir: join(mnt, 'cassettes'), fill: () => fill(filler), free: () => unlinkSync(filler), recorder: {} };
}

/** No file system to mount: the recorder is preloaded with test/helpers/fail-journal-writes.ts,
 * which makes every journal write fail with ENOSPC while a flag file exists. */
function failingWrites(base: string): FullDisk {
  const flag = join(base, 'disk-is-full');
  return {
    dir: join(base, 'cassettes'),
    fill: () => writeFileSync(flag, ''),
    free: () => unlinkSync(flag),
    recorder: { nodeArgs: ['--import', pathToFileURL(failJournalWrites).href], env: { MCPC_TEST_DISK_FULL: flag } },
  };
}

const failJournalWrites = join(root, 'dist', 'test', 'helpers', 'fail-journal-writes.js');

onTmpfs(
  'a full disk never stops traffic: recording pauses with an alert and a count of what was not recorded, then resumes by itself (a real 1 MB tmpfs)',
  async (t) => {
    const mnt = join(tempDir(t), 'small');
    mountSmallFs(mnt);
    t.teardown(() => execFileSync('umount', ['-l', mnt], { stdio: 'ignore' }));
    await fullDisk(t, tmpfsDisk(mnt));
  },
);

test('a simulated ENOSPC (journal writes made to fail by a preload, no real file system) never stops traffic either: the same pause, count and resume', async (t) => {
  await fullDisk(t, failingWrites(tempDir(t)));
});

/** The official v1 SDK client and server through the proxy while the disk fills up and empties;
 * /metrics is scraped while recording is paused and at the end. */
async function fullDisk(t: ExecutionContext, disk: FullDisk): Promise<void> {
  const { dir } = disk;
  const upstream = await startTappedUpstream(t, v1SessionfulHandler());
  // Port 0: the recorder logs the address it got ("serving metrics", before its own URL).
  const proxy = await startDirRecorder(t, upstream.url, dir, ['--metrics-listen', '0'], disk.recorder);
  await until(() => logLine(proxy.stderr(), 'serving metrics') !== undefined, 'the metrics address');
  const metrics = String(logLine(proxy.stderr(), 'serving metrics')!.metrics);
  t.is(sample(await scrape(metrics), 'mcp_cassette_recording_paused'), 0);
  const phases: Record<'before' | 'full' | 'after', string[]> = { before: [], full: [], after: [] };
  await runV1HttpScenario(proxy.url, async (client) => {
    const call = async (phase: keyof typeof phases, n: number): Promise<void> => {
      const r = (await client.callTool({ name: 'add', arguments: { a: n, b: 0.5 } })) as { content: { text: string }[] };
      t.is(r.content[0]!.text, String(n + 0.5), 'every answer reaches the client');
      phases[phase].push(r.content[0]!.text);
    };
    for (let n = 0; n < 5; n++) await call('before', n);
    disk.fill();
    for (let n = 100; n < 120; n++) await call('full', n);
    // The alert (logs are written asynchronously, so it may trail the answers a little).
    await until(() => /recording paused/.test(proxy.stderr()), 'the alert');
    const paused = await scrape(metrics);
    t.is(sample(paused, 'mcp_cassette_recording_paused'), 1, 'the gauge while paused');
    t.true((sample(paused, 'mcp_cassette_unrecorded_total{unit="messages",reason="no_space"}') ?? 0) > 0, paused);
    disk.free();
    // Recording tries again on the next write a second after the last try; go on until it has.
    let n = 200;
    while (!/recording resumed/.test(proxy.stderr())) await call('full', n++);
    for (let m = 300; m < 305; m++) await call('after', m);
    return {};
  });
  const after = await scrape(metrics);
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
  // The metrics say the same as the counters (scraped before the stop, so up to the last answer).
  t.is(sample(after, 'mcp_cassette_recording_paused'), 0, 'the gauge once resumed');
  t.is(sample(after, 'mcp_cassette_unrecorded_total{unit="messages",reason="no_space"}'), stopped.messagesNotRecorded);
  t.is(sample(after, 'mcp_cassette_unrecorded_total{unit="bytes",reason="no_space"}'), stopped.bytesNotRecorded);
}
