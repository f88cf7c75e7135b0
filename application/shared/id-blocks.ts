import { IdGenerator } from '../ports/ids';

/**
 * Ids taken from the generator a block at a time, for resources created on a hot path (a gate
 * verdict per CI call): one sequence write per block instead of one per resource. Ids stay unique
 * across instances (each instance draws its own blocks); what is lost is the gap-free, strictly
 * time-ordered sequence: with two instances, ids from their blocks interleave, and a block left
 * unfinished at a stop leaves a gap. Use it only where neither matters.
 */
export class IdBlocks {
  private ids: number[] = [];
  private refill: Promise<void> | null = null;

  constructor(private readonly generator: IdGenerator, private readonly kind: string, private readonly size = 64) {}

  async next(): Promise<number> {
    while (this.ids.length === 0) {
      // One refill at a time: concurrent callers wait for the same block rather than each taking one.
      this.refill ??= this.generator.nextBlock(this.kind, this.size)
        .then((block) => { this.ids.push(...block); })
        .finally(() => { this.refill = null; });
      await this.refill;
    }
    return this.ids.shift()!;
  }
}
