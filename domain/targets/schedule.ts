import { refuse } from '../shared/decider';
import { cronOccurrenceAfter, latestCronOccurrenceAtOrBefore, validateCronExpression } from './cron';
import { TargetRef, targetRef } from './target-ref';
import { TargetKind } from '../shared/target-kind';

/**
 * Scan schedules of targets, spec 1 §2.1:
 *   scanManualOnly      true clears interval and cron; true with a positive interval or an expression: 400;
 *                       an update naming an interval or expression without it turns it false (CONVENTIONS).
 *   scanIntervalMinutes 0 means unset and reads back null; negative: 400.
 *   schedule            read-only {mode, intervalMinutes}; precedence manual, cron, own interval, default.
 */

export interface ScheduleSettings {
  readonly scanManualOnly: boolean;
  readonly scanIntervalMinutes: number | null;
  readonly scanCron: string | null;
}

/** The schedule fields of a create or PATCH body; undefined = not named. */
export interface ScheduleInput {
  readonly scanManualOnly?: boolean;
  readonly scanIntervalMinutes?: number | null;
  readonly scanCron?: string | null;
}

export const DEFAULT_SCAN_INTERVAL_DAYS = 7; // setting scan_default_interval_days; 0 = no default
export const MINUTES_PER_DAY = 1440;
const MINUTE_MS = 60_000;
/** 100 years: beyond it an interval is a typing mistake, and dates would leave the representable range. */
export const MAX_SCAN_INTERVAL_MINUTES = 100 * 365 * MINUTES_PER_DAY;

const NO_SCHEDULE: ScheduleSettings = { scanManualOnly: false, scanIntervalMinutes: null, scanCron: null };

function manualOnlyFlag(value: unknown): boolean {
  if (typeof value !== 'boolean') throw refuse.invalid('scanManualOnly must be true or false');
  return value;
}

/** null and 0 both mean "unset" (reads back null). */
function intervalMinutes(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw refuse.invalid('scanIntervalMinutes must be a whole number of minutes');
  if (value < 0) throw refuse.invalid('scanIntervalMinutes must not be negative (0 means: use the installation default)');
  if (value > MAX_SCAN_INTERVAL_MINUTES) throw refuse.invalid(`scanIntervalMinutes must be at most ${MAX_SCAN_INTERVAL_MINUTES} (100 years)`);
  return value === 0 ? null : value;
}

/** null and a blank string both mean "no expression". */
function cronExpression(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw refuse.invalid('scanCron must be a string');
  return value.trim() === '' ? null : validateCronExpression(value);
}

function refuseManualOnlyWith(interval: number | null, cron: string | null): void {
  if (interval !== null) throw refuse.invalid('scanManualOnly true cannot be combined with a positive scanIntervalMinutes');
  if (cron !== null) throw refuse.invalid('scanManualOnly true cannot be combined with a scanCron expression');
}

/** Schedule fields of a new target. */
export function scheduleOnCreate(input: ScheduleInput): ScheduleSettings {
  return scheduleOnUpdate(NO_SCHEDULE, input);
}

/** Schedule fields after a partial update (PATCH). */
export function scheduleOnUpdate(current: ScheduleSettings, patch: ScheduleInput): ScheduleSettings {
  const namesInterval = patch.scanIntervalMinutes !== undefined;
  const namesCron = patch.scanCron !== undefined;
  const interval = namesInterval ? intervalMinutes(patch.scanIntervalMinutes) : current.scanIntervalMinutes;
  const cron = namesCron ? cronExpression(patch.scanCron) : current.scanCron;

  if (patch.scanManualOnly !== undefined) {
    const manualOnly = manualOnlyFlag(patch.scanManualOnly);
    if (!manualOnly) return { scanManualOnly: false, scanIntervalMinutes: interval, scanCron: cron };
    // Only what this request names can conflict; what the target held before is simply cleared.
    refuseManualOnlyWith(namesInterval ? interval : null, namesCron ? cron : null);
    return { scanManualOnly: true, scanIntervalMinutes: null, scanCron: null };
  }
  // Naming an interval or an expression (even 0 or null) without scanManualOnly leaves manual-only.
  const manualOnly = current.scanManualOnly && !namesInterval && !namesCron;
  // Only the three schedule fields: `current` is often the whole target, whose other fields must not come back over a PATCH.
  return manualOnly
    ? { scanManualOnly: true, scanIntervalMinutes: current.scanIntervalMinutes, scanCron: current.scanCron }
    : { scanManualOnly: false, scanIntervalMinutes: interval, scanCron: cron };
}

export type ScheduleMode = 'manual' | 'cron' | 'interval' | 'default';

export interface ScheduleView {
  readonly mode: ScheduleMode;
  readonly intervalMinutes: number | null;
}

/** Installation default in minutes, or null when scan_default_interval_days is 0 (no default). */
export function installationDefaultMinutes(defaultIntervalDays: number): number | null {
  if (!Number.isFinite(defaultIntervalDays) || defaultIntervalDays <= 0) return null;
  return Math.round(defaultIntervalDays * MINUTES_PER_DAY);
}

/** The read-only `schedule` object of a target, by precedence: manual-only, cron, own interval, default. */
export function scheduleView(target: ScheduleSettings, installationDefaultIntervalDays: number): ScheduleView {
  const view: ScheduleView = target.scanManualOnly
    ? { mode: 'manual', intervalMinutes: null }
    : target.scanCron !== null
      ? { mode: 'cron', intervalMinutes: null }
      : target.scanIntervalMinutes !== null
        ? { mode: 'interval', intervalMinutes: target.scanIntervalMinutes }
        : { mode: 'default', intervalMinutes: installationDefaultMinutes(installationDefaultIntervalDays) };
  return Object.freeze(view);
}

/**
 * Minutes into each default interval at which this target's slot falls, from its kind and id only
 * (FNV-1a with a murmur3 finaliser), so the slot is the same every week and targets spread evenly.
 * Changing this function moves every target's slot: the spec pins a few values.
 */
export function defaultSlotOffsetMinutes(kind: TargetKind, id: number, intervalMinutes: number): number {
  const text = `${kind}:${id}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  hash = (hash ^ (hash >>> 16)) >>> 0;
  return hash % intervalMinutes;
}

export interface SchedulingDefaults {
  /** Installation setting scan_default_interval_days (0 = no default). */
  readonly defaultIntervalDays: number;
}

export interface SchedulableTarget extends ScheduleSettings {
  readonly kind: TargetKind;
  readonly id: number;
  /** When nothing was scheduled yet, the schedule counts from registration. */
  readonly registeredAt: Date | string;
}

export interface SchedulingCandidate extends SchedulableTarget {
  readonly lastScheduledScanAt: Date | string | null;
}

export interface ScheduledScanDue {
  readonly ref: TargetRef;
  readonly kind: TargetKind;
  readonly id: number;
  readonly mode: Exclude<ScheduleMode, 'manual'>;
}

function toMs(instant: Date | string, what: string): number {
  const ms = instant instanceof Date ? instant.getTime() : Date.parse(instant);
  if (Number.isNaN(ms)) throw new Error(`${what} is not a timestamp: ${String(instant)}`);
  return ms;
}

/**
 * What the schedule counts from: the last scheduled scan, else registration. Never later than now: an
 * instant written by an instance whose clock ran ahead must not starve the target.
 */
function anchorMs(target: SchedulableTarget, lastScheduledScanAt: Date | string | null, nowMs: number): number {
  const anchor = lastScheduledScanAt === null ? toMs(target.registeredAt, `registeredAt of ${targetRef(target.kind, target.id)}`)
    : toMs(lastScheduledScanAt, `lastScheduledScanAt of ${targetRef(target.kind, target.id)}`);
  return Math.min(anchor, nowMs);
}

/** Slots lie on a grid from the Unix epoch: offset + k x interval, hence the same weekday and time each week. */
function latestSlotAtOrBefore(instantMs: number, offsetMs: number, intervalMs: number): number {
  return Math.floor((instantMs - offsetMs) / intervalMs) * intervalMs + offsetMs;
}

/**
 * When the next scheduled scan of the target falls due (in the past when overdue), or null when none is
 * scheduled: manual-only, a cron expression that never fires again, or the default mode without an
 * installation default. The application records the round's instant as lastScheduledScanAt.
 */
export function nextDueAt(target: SchedulableTarget, lastScheduledScanAt: Date | string | null, defaults: SchedulingDefaults, now: Date): Date | null {
  const anchor = anchorMs(target, lastScheduledScanAt, now.getTime());
  const view = scheduleView(target, defaults.defaultIntervalDays);
  switch (view.mode) {
    case 'manual':
      return null;
    case 'cron': {
      const next = cronOccurrenceAfter(target.scanCron!, anchor);
      return next === null ? null : new Date(next);
    }
    case 'interval':
      return new Date(anchor + view.intervalMinutes! * MINUTE_MS);
    case 'default': {
      if (view.intervalMinutes === null) return null;
      const intervalMs = view.intervalMinutes * MINUTE_MS;
      const offsetMs = defaultSlotOffsetMinutes(target.kind, target.id, view.intervalMinutes) * MINUTE_MS;
      return new Date(latestSlotAtOrBefore(anchor, offsetMs, intervalMs) + intervalMs);
    }
  }
}

/**
 * One scheduler round: the targets whose next scheduled scan is due at `now` (nextDueAt <= now), in input
 * order, leaving out those with a scan pending or running (`busy`). Linear in the targets; cron work is
 * per distinct expression and reused across rounds (see cron.ts), not per target.
 */
export function decideSchedulingRound(
  targets: readonly SchedulingCandidate[],
  now: Date,
  defaults: SchedulingDefaults,
  busy: ReadonlySet<TargetRef>,
): ScheduledScanDue[] {
  const nowMs = now.getTime();
  const defaultMinutes = installationDefaultMinutes(defaults.defaultIntervalDays);
  const due: ScheduledScanDue[] = [];
  for (const target of targets) {
    if (target.scanManualOnly) continue;
    const ref = targetRef(target.kind, target.id);
    if (busy.has(ref)) continue;
    const anchor = anchorMs(target, target.lastScheduledScanAt, nowMs);
    let mode: ScheduledScanDue['mode'];
    if (target.scanCron !== null) {
      if (!(latestCronOccurrenceAtOrBefore(target.scanCron, nowMs) > anchor)) continue;
      mode = 'cron';
    } else if (target.scanIntervalMinutes !== null) {
      if (anchor + target.scanIntervalMinutes * MINUTE_MS > nowMs) continue;
      mode = 'interval';
    } else {
      if (defaultMinutes === null) continue;
      const offsetMs = defaultSlotOffsetMinutes(target.kind, target.id, defaultMinutes) * MINUTE_MS;
      if (!(latestSlotAtOrBefore(nowMs, offsetMs, defaultMinutes * MINUTE_MS) > anchor)) continue;
      mode = 'default';
    }
    due.push({ ref, kind: target.kind, id: target.id, mode });
  }
  return due;
}
