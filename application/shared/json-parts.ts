/**
 * Consecutive slices of `items` whose JSON stays within `maxBytes` each (an item over it alone is
 * a slice of its own); none for no items. Long lists travel as several events this way, each well
 * under the event store's 900 KB (EVENT-SOURCING trap 7).
 */
export function splitByJsonBytes<T>(items: readonly T[], maxBytes: number): T[][] {
  const slices: T[][] = [];
  let current: T[] = [];
  let size = 2;
  for (const item of items) {
    const bytes = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (current.length > 0 && size + bytes > maxBytes) {
      slices.push(current);
      current = [];
      size = 2;
    }
    current.push(item);
    size += bytes;
  }
  if (current.length > 0) slices.push(current);
  return slices;
}
