import type { Observed, Report, Rule } from './rule.js';
import type { SessionState } from './session-state.js';

/**
 * Skips the rules whose input has not changed (issue 17): a rule marked `resultOnly` says
 * nothing about a message but what its `result` (and the revision and era it is judged by)
 * decides. When a session's message carries a result whose bytes are identical to those of the
 * last message that rule judged (a `tools/list` answered again with the same tools, typically
 * after every `list_changed` or on every reconnect), the rule is not run again: its reports on
 * that result are repeated, through the same `report`, so the violations (seq, severity, spec
 * link) and what the engine learns from them are exactly what running it would give.
 *
 * "Identical bytes": only messages stored without `raw` qualify, whose frame text is
 * `JSON.stringify(json)`, so the result's canonical text is exactly its bytes in the frame.
 */
export class UnchangedInputs {
  readonly #last = new Map<string, { key: string; reports: [string, string][] }>();
  /** The message whose key was made last, and its key (undefined: it does not qualify). */
  #o: Observed | undefined;
  #key: string | undefined;

  run(rule: Rule, check: Rule['check'], o: Observed, report: Report, state: SessionState): void {
    const key = this.#keyOf(o);
    if (key === undefined) return check(o, report, state);
    const last = this.#last.get(rule.id);
    if (last !== undefined && last.key === key) {
      for (const [path, message] of last.reports) report(path, message);
      return;
    }
    const reports: [string, string][] = [];
    check(
      o,
      (path, message) => {
        reports.push([path, message]);
        report(path, message);
      },
      state,
    );
    // Kept only once the rule ran to its end (a rule that throws runs again next time).
    this.#last.set(rule.id, { key, reports });
  }

  #keyOf(o: Observed): string | undefined {
    if (this.#o === o) return this.#key;
    this.#o = o;
    const m = o.msg;
    const result = o.json?.result;
    this.#key =
      m.raw === undefined && m.rawBase64 === undefined && !m.tooDeep && result !== undefined
        ? `${o.era ?? ''}\n${o.revision ?? ''}\n${o.request?.method ?? ''}\n${JSON.stringify(result)}`
        : undefined;
    return this.#key;
  }
}
