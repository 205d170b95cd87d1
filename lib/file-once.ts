import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * What `path` holds, creating it with `contents` first if it does not exist. Made for the small
 * files a directory of cassettes keeps once for all its recorders (the hash key of `--capture
 * hashed`, the directory's identity): several recorders may start at once, and all of them must
 * end up with the same file. The text is written whole (and synced) to a temporary file beside
 * it, then hard-linked into place: the link is atomic and fails if the name exists, so exactly
 * one recorder creates the file, no reader sees a part of it, and the others read the winner's.
 * On a file system without hard links, an exclusive create is the fallback (atomic too, but a
 * reader could then see the file before its text). fs errors are thrown as they came.
 */
export function readOrCreate(path: string, contents: string, mode: number): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', mode);
  try {
    const data = Buffer.from(contents, 'utf8');
    for (let done = 0; done < data.length; ) done += writeSync(fd, data, done, data.length - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
      try {
        writeFileSync(path, contents, { flag: 'wx', mode });
      } catch (inner) {
        if ((inner as NodeJS.ErrnoException).code !== 'EEXIST') throw inner;
      }
    } else if (code !== 'EEXIST') throw err;
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // already gone
    }
  }
  return readFileSync(path, 'utf8');
}
