/** Integer identifiers for resources (spec: "id integer") and UUIDs for events. */
export interface IdGenerator {
  next(kind: string): Promise<number>;
  uuid(): string;
}
