import { CronExpressionParser } from 'cron-parser';
import { refuse } from '../shared/decider';

/**
 * scanCron: five-field cron (minute hour day-of-month month day-of-week), read in UTC.
 * - Five fields only, like GitHub Actions' schedule: a seconds field means nothing to a scheduler that
 *   runs once a minute, and "@daily"-style macros would be a second spelling of the same schedule.
 * - Names (JAN, MON), ranges, lists, steps, '?', 'L' and '#' are accepted as cron-parser reads them.
 * - 'H' (hashed jitter) is refused: without a seed it is random, and the domain holds no randomness.
 * Every call hands cron-parser an explicit date, so it never reads the clock.
 */

const FIELD_NAMES = 'minute hour day-of-month month day-of-week';
const MAX_EXPRESSION_LENGTH = 200;
/** A fixed instant to prove an expression can fire at all ("0 0 30 2 *" cannot). */
const VALIDATION_REFERENCE = Date.UTC(2000, 0, 1);
const OPTIONS = { tz: 'UTC' } as const;

/** The stored spelling: trimmed, single spaces. Refuses (400) with a detail a person can act on. */
export function validateCronExpression(raw: string): string {
  const expression = raw.trim().replace(/\s+/g, ' ');
  const bad = (why: string) => refuse.invalid(`scanCron "${expression}" is not a valid cron expression: ${why}`);
  if (expression.length > MAX_EXPRESSION_LENGTH) throw bad(`longer than ${MAX_EXPRESSION_LENGTH} characters`);
  if (expression.startsWith('@')) throw bad(`macros are not accepted; write the five fields (${FIELD_NAMES}), e.g. "0 3 * * *" for daily at 03:00 UTC`);
  const fields = expression.split(' ');
  if (fields.length !== 5) throw bad(`expected five fields (${FIELD_NAMES}), got ${fields.length}`);
  if (/h/i.test(expression.replace(/\b(thu|thursday)\b/gi, ''))) throw bad("'H' (hashed jitter) is not supported");
  try {
    CronExpressionParser.parse(expression, { ...OPTIONS, currentDate: VALIDATION_REFERENCE }).next();
  } catch (error) {
    throw bad(error instanceof Error ? error.message : String(error));
  }
  return expression;
}

/** The first occurrence strictly after `afterMs`, or null when the expression never fires again. */
export function cronOccurrenceAfter(expression: string, afterMs: number): number | null {
  try {
    return CronExpressionParser.parse(expression, { ...OPTIONS, currentDate: afterMs }).next().getTime();
  } catch {
    return null;
  }
}

interface OccurrenceWindow {
  /** Latest occurrence at or before any instant in [latestMs, nextMs); -Infinity when none. */
  readonly latestMs: number;
  readonly nextMs: number;
}

/**
 * Per expression text, the window between two occurrences. A scheduling round asks "latest occurrence at
 * or before now" for every cron target; the answer only changes when now passes the next occurrence, so
 * rounds a minute apart reuse it instead of parsing and iterating per target (cron-parser costs tens of
 * microseconds per parse and per step). Pure memoisation: the answer depends only on (text, now).
 */
const windows = new Map<string, OccurrenceWindow>();
const MAX_WINDOWS = 50_000;
/** An expression that cannot be iterated is asked again after this long rather than on every round. */
const RETRY_UNITERABLE_MS = 60 * 60_000;

export function latestCronOccurrenceAtOrBefore(expression: string, nowMs: number): number {
  const cached = windows.get(expression);
  if (cached && cached.latestMs <= nowMs && nowMs < cached.nextMs) return cached.latestMs;
  const window = occurrenceWindow(expression, nowMs);
  if (windows.size >= MAX_WINDOWS) windows.clear();
  windows.set(expression, window);
  return window.latestMs;
}

function occurrenceWindow(expression: string, nowMs: number): OccurrenceWindow {
  try {
    // cron-parser's prev() is strictly before its current date; a millisecond later makes it "at or before now".
    const iterator = CronExpressionParser.parse(expression, { ...OPTIONS, currentDate: nowMs + 1 });
    const latestMs = iterator.prev().getTime();
    iterator.reset(new Date(nowMs));
    const nextMs = iterator.next().getTime();
    return { latestMs, nextMs };
  } catch {
    return { latestMs: -Infinity, nextMs: nowMs + RETRY_UNITERABLE_MS };
  }
}
