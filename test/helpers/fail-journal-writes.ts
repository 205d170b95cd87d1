/**
 * Preloaded into a recorder (`node --import <this> cli.js record ...`) by the full-disk tests
 * where no small file system can be mounted: while the file named by MCPC_TEST_DISK_FULL exists,
 * every write to a journal (`*.journal`) fails with ENOSPC, as on a full disk; once it is deleted,
 * writes succeed again. The recorder's own code is unchanged: node:fs is patched before it loads
 * (syncBuiltinESMExports carries the patch to `import { writevSync } from 'node:fs'`).
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const flag = process.env.MCPC_TEST_DISK_FULL;

function full(fd: number): boolean {
  if (!flag || !fs.existsSync(flag)) return false;
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`).endsWith('.journal');
  } catch {
    return false;
  }
}

function enospc(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
}

if (flag) {
  const { writeSync, writevSync } = fs;
  fs.writeSync = ((fd: number, ...rest: unknown[]) => {
    if (full(fd)) throw enospc();
    return (writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  fs.writevSync = ((fd: number, ...rest: unknown[]) => {
    if (full(fd)) throw enospc();
    return (writevSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writevSync;
  syncBuiltinESMExports();
}
