/**
 * Preloaded into the Vigil process that `npm run bench:imports` starts
 * (`node --require dist/scripts/bench/memory-probe.js dist/interfaces/cli/server.js`): between the
 * parent's 'peak-start' and 'peak-stop' it samples process.memoryUsage() every 10 ms and answers
 * the peaks over the IPC channel, to tell how the peak splits into V8 heap and buffers. It never
 * forces a collection and allocates next to nothing, so the process runs as `npm start` runs it;
 * the peak RSS figure itself is the kernel's high-water mark, read by the parent.
 */
export interface ProbePeaks {
  /** RSS when sampling started. */
  start: number;
  rss: number;
  heap: number;
  buffers: number;
}

export type ProbeMessage = { probe: 'peak-start' | 'peak-stop'; peaks?: ProbePeaks };

if (process.send) {
  let peaks: ProbePeaks | null = null;
  let timer: NodeJS.Timeout | null = null;
  const sample = () => {
    const m = process.memoryUsage();
    if (!peaks) return;
    peaks.rss = Math.max(peaks.rss, m.rss);
    peaks.heap = Math.max(peaks.heap, m.heapUsed);
    peaks.buffers = Math.max(peaks.buffers, m.arrayBuffers);
  };
  process.on('message', (m: { probe?: string }) => {
    if (m?.probe === 'peak-start') {
      const rss = process.memoryUsage().rss;
      peaks = { start: rss, rss, heap: 0, buffers: 0 };
      timer = setInterval(sample, 10);
      process.send!({ probe: 'peak-start' } satisfies ProbeMessage);
    } else if (m?.probe === 'peak-stop' && peaks) {
      sample();
      if (timer) clearInterval(timer);
      process.send!({ probe: 'peak-stop', peaks } satisfies ProbeMessage);
      peaks = null;
    }
  });
  // The IPC channel must not keep Vigil alive once its server has closed (SIGTERM).
  process.channel?.unref();
}
