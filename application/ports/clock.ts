/** Time comes from here so that tests can move it (trap 9). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests set and move. */
export class ManualClock implements Clock {
  constructor(private current: Date = new Date('2026-01-01T00:00:00.000Z')) {}
  now(): Date { return new Date(this.current); }
  set(at: Date | string): void { this.current = new Date(at); }
  advance(ms: number): void { this.current = new Date(this.current.getTime() + ms); }
}
