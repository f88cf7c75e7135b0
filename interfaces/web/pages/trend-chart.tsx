import type { TrendPoint } from './estate';

/** Risk points and open critical issues per day as two SVG lines (no chart library, no inline style), with the figures in a table for screen readers. */
export function TrendChart({ points }: { points: TrendPoint[] }) {
  if (points.length === 0) return <p class="muted">No day recorded yet.</p>;
  const W = 640, H = 200, L = 44, B = 24, T = 10, R = 10;
  const max = Math.max(1, ...points.map((p) => Math.max(p.riskPoints, p.openCriticalCount)));
  const x = (i: number) => L + (points.length === 1 ? 0 : (i * (W - L - R)) / (points.length - 1));
  const y = (v: number) => T + (H - T - B) * (1 - v / max);
  const line = (f: (p: TrendPoint) => number) => points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(f(p)).toFixed(1)}`).join(' ');
  const first = points[0], last = points[points.length - 1];
  return (
    <figure>
      <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="trend-title">
        <title id="trend-title">{`Risk points from ${first.riskPoints} on ${first.date} to ${last.riskPoints} on ${last.date}; open critical from ${first.openCriticalCount} to ${last.openCriticalCount}.`}</title>
        <line class="axis" x1={L} y1={H - B} x2={W - R} y2={H - B} />
        <line class="axis" x1={L} y1={T} x2={L} y2={H - B} />
        <text x={L - 6} y={T + 8} text-anchor="end">{max}</text>
        <text x={L - 6} y={H - B} text-anchor="end">0</text>
        <text x={L} y={H - 6}>{first.date}</text>
        <text x={W - R} y={H - 6} text-anchor="end">{last.date}</text>
        <path class="risk" d={line((p) => p.riskPoints)} />
        <path class="crit" d={line((p) => p.openCriticalCount)} />
      </svg>
      <figcaption class="legend"><span class="risk">Risk points</span><span class="crit">Open critical</span></figcaption>
      <details>
        <summary>The figures per day</summary>
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Trend figures">
          <table><caption>Trend figures per day</caption>
            <thead><tr><th scope="col">Day</th><th scope="col" class="num">Risk points</th><th scope="col" class="num">Critical</th><th scope="col" class="num">High</th><th scope="col" class="num">KEV</th><th scope="col" class="num">Observed</th><th scope="col" class="num">Lowest score</th></tr></thead>
            <tbody>{points.map((p) => <tr key={p.date}><td>{p.date}</td><td class="num">{p.riskPoints}</td><td class="num">{p.openCriticalCount}</td><td class="num">{p.openHighCount}</td><td class="num">{p.openKevCount}</td><td class="num">{p.observedTargets}</td><td class="num">{p.lowestScore ?? '—'}</td></tr>)}</tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
