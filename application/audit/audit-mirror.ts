import type { Logger } from 'winston';
import { IntervalLoop } from '../shared/interval-loop';
import { AuditEntries, JsonLinesFile, MirrorPositions } from './ports';

/**
 * VIGIL_AUDIT_MIRROR (spec 1 §1, §8.3, S1.1-15, S1.8.3-55): every audit entry also as one JSON line
 * in a file. A subscriber of the audit log after commit: it reads the entries after the seq it last
 * wrote to that path, appends them, fsyncs the batch, then records the seq (a crash between the two
 * repeats a batch; lines carry seq and hash, so a reader drops repeats). SIGHUP reopens the path
 * (after logrotate moved it); past VIGIL_AUDIT_MIRROR_MAX_SIZE the file is moved to `<path>.1`.
 */
export class AuditMirror {
  // Every second, not woken per commit: one fsync a second at most, whatever the rate of entries.
  private readonly loop = new IntervalLoop(
    () => this.turn(),
    (e) => this.log.error(`Audit mirror ${this.path}: ${(e as Error)?.message ?? String(e)}; the next turn tries again`),
  );
  private reopenAsked = false;

  constructor(
    private readonly path: string,
    private readonly entries: AuditEntries,
    private readonly file: JsonLinesFile,
    private readonly positions: MirrorPositions,
    private readonly log: Logger,
    private readonly options: { intervalMs: number; batchSize: number; maxBytes: number },
  ) {}

  /** SIGHUP: reopened before the next batch. */
  askReopen(): void { this.reopenAsked = true; }

  start(): void {
    this.loop.start(this.options.intervalMs);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.file.close();
  }

  /** Writes every entry not yet mirrored; answers how many. */
  async turn(): Promise<number> {
    if (this.reopenAsked) {
      this.reopenAsked = false;
      await this.file.reopen();
    }
    let after = await this.positions.get(this.path);
    let written = 0;
    for (;;) {
      const { items } = await this.entries.list(after, this.options.batchSize, {});
      if (items.length === 0) return written;
      await this.file.append(items.map((e) => JSON.stringify(e)));
      after = items[items.length - 1].seq;
      await this.positions.set(this.path, after);
      written += items.length;
      await this.file.rotateIfLarger(this.options.maxBytes);
    }
  }
}
