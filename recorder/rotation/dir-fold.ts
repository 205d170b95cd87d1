import { liveValidationStats } from '../../lib/live-stats.js';
import type { CaptureRuntime } from '../capture/capture-runtime.js';
import type { FoldSettings } from './cassette-dir.js';

/**
 * What each cassette of `record --cassette-dir` gets when it closes, as a single cassette gets
 * it when it is written: judge-at-write of what live validation left undone (every message once
 * the live validator has shed; on HTTP, the rules that compare sessions, which the live workers
 * leave to each cassette here), then `--sample` (a session with a violation at `--keep-violations`
 * is kept). The fold runs in a worker thread; its counts come back here, to the summary and the
 * metrics.
 */
export function dirFold(options: {
  capture: CaptureRuntime;
  /** The module exporting `judgeAtWrite` (from the composition root); none without validation. */
  judgeModule?: string;
  http: boolean;
  failOn?: 'error' | 'warning';
}): { fold: FoldSettings; failed: () => boolean | undefined } {
  const { capture, judgeModule } = options;
  const stats = liveValidationStats();
  let failed: boolean | undefined;
  const fold: FoldSettings = {
    ...(capture.args.sampling ? { sampling: capture.args.sampling } : {}),
    judge: () => {
      if (!judgeModule) return undefined;
      // HTTP: the rules that compare sessions judge each cassette as it is written, whatever the
      // number of workers: the live workers keep no digests of a run that may never end.
      const scope = stats.shedEvents > 0 ? 'all' : options.http ? 'cross-session' : undefined;
      return scope ? { module: judgeModule, scope, ...(options.failOn ? { failOn: options.failOn } : {}) } : undefined;
    },
    folded: (r) => {
      if (r.sampling) capture.addSampling(r.sampling);
      if (r.judged) {
        stats.judgedAtWrite += r.judged.judged;
        stats.violationsAtWrite += r.judged.violations;
        failed = (failed ?? false) || r.judged.failed;
      }
    },
  };
  return { fold, failed: () => failed };
}
