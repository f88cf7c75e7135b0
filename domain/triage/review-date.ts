import { refuse } from '../shared/decider';

/** Spec 1 §4.5: expires_in_days is 1 to 3650 (ten years); 0 or 3651 answers 400. */
export const EXPIRES_IN_DAYS = { min: 1, max: 3650 } as const;

const DAY_MS = 86_400_000;

/** Days are whole UTC days of 24 hours: a review date never shifts with a daylight-saving change. */
export function addDays(from: Date | string, days: number): string {
  const start = typeof from === 'string' ? Date.parse(from) : from.getTime();
  return new Date(start + days * DAY_MS).toISOString();
}

/** Refuses (400) an expires_in_days that is missing, fractional or outside 1..3650. */
export function requireExpiresInDays(days: number | undefined | null, field = 'expires_in_days'): number {
  if (days === undefined || days === null) throw refuse.invalid(`${field} is required`, { field });
  if (!Number.isInteger(days) || days < EXPIRES_IN_DAYS.min || days > EXPIRES_IN_DAYS.max) {
    throw refuse.invalid(`${field} must be a whole number from ${EXPIRES_IN_DAYS.min} to ${EXPIRES_IN_DAYS.max}`, {
      field,
      [field]: days,
    });
  }
  return days;
}

/** True once the instant `now` is at or past `reviewDate` (ISO 8601). */
export function isReached(reviewDate: string, now: Date): boolean {
  return Date.parse(reviewDate) <= now.getTime();
}
