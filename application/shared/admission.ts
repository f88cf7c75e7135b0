/**
 * At most `limit` pieces of work at a time; the others wait here, in arrival order, before they touch
 * the database. Used where a flood of one kind of request (agents' reports) would otherwise queue in
 * front of another (claims) at the connection pool: the flood waits in memory, the short claims pass.
 */
export class Admission {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.queue.shift();
      if (next) next(); // the slot passes on as it is
      else this.running--;
    }
  }

  get waiting(): number {
    return this.queue.length;
  }
}
