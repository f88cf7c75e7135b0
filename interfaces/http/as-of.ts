import { Type } from '@sinclair/typebox';
import { refuse } from '../../domain/shared/decider';
import { Text } from './text';

/** RFC 3339 date-time (section 5.6): a date, "T", a time with optional fraction, and Z or an offset. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** The `as_of` query parameter of every export and of GET /issues/{id} (issue #11). */
export const AsOfQuery = Text({ max: 40, description: 'An RFC 3339 instant: answer from the event log folded up to it (e.g. 2026-01-31T12:00:00Z)' });
export const AsOfSchema = Type.Optional(AsOfQuery);

/** The instant, or null when absent; 400 when it is not RFC 3339. Millisecond precision, as the log records instants. */
export function parseAsOf(value: unknown): Date | null {
  if (value === undefined || value === null || value === '') return null;
  const text = String(value);
  const m = RFC3339.exec(text);
  const instant = m ? new Date(text.toUpperCase()) : null;
  if (!m || !instant || Number.isNaN(instant.getTime()) || Number(m[2]) > 12 || Number(m[3]) > 31 || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) {
    throw refuse.invalid(`query.as_of "${text.slice(0, 40)}" is not an RFC 3339 instant such as 2026-01-31T12:00:00Z.`);
  }
  return instant;
}
