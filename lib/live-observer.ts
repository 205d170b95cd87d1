import type { RecordedMessage } from './message.js';
import type { Violation } from './violation.js';

/**
 * What the proxy hands every complete frame to while it records, after forwarding it. The
 * recorder knows nothing of validation: the composition root (cli) plugs the live validator in
 * through this interface, so recorder/ and validators/ never import each other.
 */
export interface LiveObserver {
  /** Judges one frame of a session; returns the violations to keep with the recording.
   * Must not throw: a bug inside is reported and swallowed. */
  message(session: { id: string; transport: 'stdio' | 'streamable-http' }, msg: RecordedMessage): Violation[];
  /** The session is over: flush alerts and print the summary. Resolves with whether violations
   * at the `--fail-on` level were seen. */
  close(): Promise<{ failed: boolean }>;
}

export type LiveObserverFactory = () => Promise<LiveObserver>;
