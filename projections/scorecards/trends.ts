import { Database } from '../../infrastructure/db/database';
import { targetKey } from './scan-status';

const DAY_MS = 86_400_000;

/**
 * The day this installation's scorecard formula changed (GET /dashboard/trends, S1.2.9-22). Vigil has
 * computed every score with the formula of spec 1 §2.9 since its first release, so trend points never
 * straddle a change: null. A future change of formula sets the date it shipped.
 */
export const SCORE_FORMULA_CHANGED_ON: string | null = null;

interface TrendRow {
  target_kind: string; target_id: number; day?: string; scanned: boolean | number; risk_points: number; score: number;
  open_critical: number; open_high: number; open_kev: number;
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * GET /dashboard/trends: one point per day of the last `days` (today, by `now`, last), summed over the
 * `visible` targets. A target's figures on a day are those it ended the latest day it changed on, on
 * or before that day: the trend points of its earlier days (`scorecard_trend_points`), its current row
 * (`scorecard_targets`) for its last one. `observedTargets` and `lowestScore` read the projection's
 * record of scanning, the same as the scan-status port.
 */
export async function trendPoints(db: Database, visible: ReadonlySet<string>, nowMs: number, days: number) {
  const today = dayOf(nowMs);
  const first = dayOf(nowMs - (days - 1) * DAY_MS);
  const knex = db.knex;
  const latestBefore = knex('scorecard_trend_points').where('day', '<', first).groupBy('target_kind', 'target_id')
    .select('target_kind', 'target_id').max({ day: 'day' }).as('m');
  const [carried, within, currentRows] = await Promise.all([
    knex('scorecard_trend_points as p')
      .join(latestBefore, (j) => { j.on('p.target_kind', '=', 'm.target_kind').andOn('p.target_id', '=', 'm.target_id').andOn('p.day', '=', 'm.day'); })
      .select('p.*') as Promise<TrendRow[]>,
    knex('scorecard_trend_points').where('day', '>=', first).where('day', '<=', today).select('*') as Promise<TrendRow[]>,
    knex('scorecard_targets').select('target_kind', 'target_id', 'updated_at', 'scanned', 'risk_points', 'score', 'open_critical', 'open_high', 'open_kev') as Promise<Array<TrendRow & { updated_at: string }>>,
  ]);
  // Oldest first; on one day a current row comes after a point (it is the later state).
  const rows = [
    ...carried.map((r) => ({ r, day: r.day!, current: 0 })), ...within.map((r) => ({ r, day: r.day!, current: 0 })),
    ...currentRows.map((r) => ({ r, day: r.updated_at.slice(0, 10), current: 1 })).filter((x) => x.day <= today),
  ].filter((x) => visible.has(targetKey(x.r.target_kind, x.r.target_id)))
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.current - b.current));
  const standing = new Map<string, TrendRow>();
  const points = [];
  let next = 0;
  for (let d = 0; d < days; d++) {
    const date = dayOf(Date.parse(`${first}T00:00:00.000Z`) + d * DAY_MS);
    for (; next < rows.length && rows[next].day <= date; next++) standing.set(targetKey(rows[next].r.target_kind, rows[next].r.target_id), rows[next].r);
    let riskPoints = 0; let critical = 0; let high = 0; let kev = 0; let observed = 0; let lowest: number | null = null;
    for (const r of standing.values()) {
      riskPoints += Number(r.risk_points); critical += Number(r.open_critical); high += Number(r.open_high); kev += Number(r.open_kev);
      if (r.scanned) {
        observed++;
        lowest = lowest === null ? Number(r.score) : Math.min(lowest, Number(r.score));
      }
    }
    points.push({ date, riskPoints, openCriticalCount: critical, openHighCount: high, openKevCount: kev, observedTargets: observed, lowestScore: lowest });
  }
  return points;
}
