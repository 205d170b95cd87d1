/**
 * The live validator's thread starts here. On Linux it first lowers its own scheduling priority
 * (the thread's, not the proxy's: Linux schedules threads on their own), then loads the
 * validator (live-worker.ts). Loading the rules and the SDK's schemas takes some 130 ms of CPU,
 * and a host starts all its servers at once: at nice 5, the validators of eight proxies yield to
 * the servers still answering their host's first request, and forwarding keeps the upper hand
 * under load (the validator sheds, counted, when it falls behind; docs/live-validation.md).
 */
import { setPriority } from 'node:os';

/** CFS weight 335 against 1024 at nice 0. */
const LIVE_WORKER_NICE = 5;

if (process.platform === 'linux') {
  try {
    setPriority(0, LIVE_WORKER_NICE);
  } catch {
    // not allowed here: the validator runs at the proxy's priority
  }
}
await import('./live-worker.js');
