/** Integer identifiers for resources (spec: "id integer") and UUIDs for events. */
export interface IdGenerator {
  next(kind: string): Promise<number>;
  /** `count` consecutive ids in one step (imports creating thousands of issues). */
  nextBlock(kind: string, count: number): Promise<number[]>;
  uuid(): string;
}
