import { SingleBar } from 'cli-progress';

/**
 * The progress of `npm run projections:rebuild` on the error stream (the result lines stay on the
 * standard output): events replayed of those in the log, the rate, and the time left. In a
 * terminal it redraws one line; elsewhere (a CI log, `docker compose exec -T`) it writes a line
 * every few seconds.
 */
export interface RebuildProgress {
  update(eventsDone: number): void;
  stop(): void;
}

export function rebuildProgress(total: number | null, stream: NodeJS.WritableStream & { isTTY?: boolean }, intervalMs = 2000): RebuildProgress {
  const started = Date.now();
  const bar = new SingleBar({
    stream: stream as NodeJS.WriteStream,
    format: total === null
      ? 'Rebuilding | {value} events | {rate} events/s | {duration_formatted}'
      : 'Rebuilding [{bar}] {percentage}% | {value}/{total} events | {rate} events/s | ETA {eta_formatted}',
    noTTYOutput: true,
    notTTYSchedule: intervalMs,
    etaBuffer: 50,
    hideCursor: true,
    barsize: 30,
  });
  bar.start(total ?? 0, 0, { rate: '0' });
  let last = 0;
  return {
    update(eventsDone) {
      last = total === null ? eventsDone : Math.min(eventsDone, total);
      const seconds = (Date.now() - started) / 1000;
      bar.update(last, { rate: seconds > 0 ? Math.round(last / seconds).toLocaleString('en') : '0' });
    },
    stop() {
      if (total !== null) bar.update(total, { rate: Math.round(total / Math.max((Date.now() - started) / 1000, 0.001)).toLocaleString('en') });
      bar.stop();
    },
  };
}
