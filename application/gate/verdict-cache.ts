import type { Violation } from '../../domain/gate';

/** A verdict as evaluated, with its violations already serialised for the answer. */
export interface EvaluatedVerdict {
  readonly passed: boolean;
  readonly violations: readonly Violation[];
  /** JSON.stringify(violations), made once per entry: 2,200 violations are 409 KiB of text. */
  readonly violationsJson: string;
}

interface Entry {
  version: string;
  verdict: EvaluatedVerdict;
}

/**
 * A target's evaluated verdict under one policy, kept for the state it was evaluated at: the
 * backlog version, the scan observation and (when the policy names a coverage floor) the newest
 * coverage counts. CI pipelines ask about the same target again and again while its backlog stands
 * still; re-reading thousands of candidate rows, evaluating them and serialising thousands of
 * violations on every call was most of a hot target's cost (docs/BENCHMARKS.md, bench:gate). An
 * entry is used only while that state is unchanged, so a verdict never rests on an older backlog
 * than the database holds when the call reads the version.
 *
 * Filled only when the backlog version read before the candidate query equals the one read after
 * it: the rows then belong to that version (the runner commits rows and checkpoints together).
 * Bounded, least recently used first out.
 */
export class VerdictCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity = 256) {}

  get(key: string, version: string): EvaluatedVerdict | null {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return null;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.verdict;
  }

  set(key: string, version: string, verdict: EvaluatedVerdict): void {
    this.entries.delete(key);
    this.entries.set(key, { version, verdict });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
