/**
 * In-process news that the claimable scans may have changed: a scan was requested on this instance,
 * or one ended (the next waiting scan of its target may start). The agents' long polls listen
 * (application/agents/job-signal.ts) and look at once instead of at their next database poll, which
 * remains for what other instances did.
 */
export class ScanQueueSignal {
  private readonly listeners = new Set<() => void>();

  changed(): void {
    for (const listener of this.listeners) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
