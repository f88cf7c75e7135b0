import { expect } from 'chai';
import {
  decideSchedulingRound, defaultSlotOffsetMinutes, nextDueAt, SchedulingCandidate, SchedulingDefaults,
} from '../../../domain/targets/schedule';
import { TargetRef, targetRef } from '../../../domain/targets/target-ref';

const MINUTE = 60_000;
const WEEK_MINUTES = 7 * 1440;
const weekly: SchedulingDefaults = { defaultIntervalDays: 7 };
const noDefault: SchedulingDefaults = { defaultIntervalDays: 0 };
const registeredAt = '2024-01-01T00:00:00.000Z';
const now = new Date('2024-06-05T12:00:00.000Z');
const minutesBefore = (instant: Date, minutes: number) => new Date(instant.getTime() - minutes * MINUTE);

function candidate(overrides: Partial<SchedulingCandidate> = {}): SchedulingCandidate {
  return {
    kind: 'repository', id: 1, scanManualOnly: false, scanIntervalMinutes: null, scanCron: null,
    registeredAt, lastScheduledScanAt: null, ...overrides,
  };
}

const round = (targets: SchedulingCandidate[], at = now, defaults = weekly, busy: ReadonlySet<TargetRef> = new Set()) =>
  decideSchedulingRound(targets, at, defaults, busy).map((due) => due.ref);

describe('default slots', () => {
  it('[S1.2.1-31] a slot depends only on kind and id, and is pinned so that it never moves between releases', () => {
    expect(defaultSlotOffsetMinutes('repository', 1, WEEK_MINUTES)).to.equal(9216);
    expect(defaultSlotOffsetMinutes('container', 1, WEEK_MINUTES)).to.equal(1674);
    expect(defaultSlotOffsetMinutes('repository', 42, WEEK_MINUTES)).to.equal(7968);
    expect(defaultSlotOffsetMinutes('repository', 1, 1440)).to.equal(576);
  });

  it('[S1.2.1-31] the slot falls at the same weekday and minute from one week to the next', () => {
    const target = candidate({ id: 77 });
    let last: Date | null = null;
    const dues: Date[] = [];
    for (let week = 0; week < 6; week++) {
      const due: Date = nextDueAt(target, last, weekly, new Date('2030-01-01T00:00:00Z'))!;
      dues.push(due);
      last = new Date(due.getTime() + 3 * MINUTE); // the round that created the scan ran a little late
    }
    for (let i = 1; i < dues.length; i++) expect(dues[i].getTime() - dues[i - 1].getTime()).to.equal(WEEK_MINUTES * MINUTE);
    expect(new Set(dues.map((d) => `${d.getUTCDay()} ${d.getUTCHours()}:${d.getUTCMinutes()}`)).size).to.equal(1);
  });

  it('[S1.2.1-31] slots spread targets over the whole interval', () => {
    const perDay = new Array<number>(7).fill(0);
    for (let id = 1; id <= 7000; id++) perDay[Math.floor(defaultSlotOffsetMinutes('repository', id, WEEK_MINUTES) / 1440)]++;
    for (const count of perDay) expect(count).to.be.within(800, 1200);
  });
});

describe('nextDueAt', () => {
  it('manual-only is never due', () => {
    expect(nextDueAt(candidate({ scanManualOnly: true }), null, weekly, now)).to.equal(null);
  });

  it('[S1.2.1-30] with no installation default a target in mode default is never due', () => {
    expect(nextDueAt(candidate(), null, noDefault, now)).to.equal(null);
    expect(round([candidate()], now, noDefault)).to.deep.equal([]);
  });

  it('an own interval counts from the last scheduled scan, else from registration', () => {
    const target = candidate({ scanIntervalMinutes: 90 });
    expect(nextDueAt(target, '2024-06-05T10:00:00Z', weekly, now)!.toISOString()).to.equal('2024-06-05T11:30:00.000Z');
    expect(nextDueAt(target, null, weekly, now)!.toISOString()).to.equal('2024-01-01T01:30:00.000Z');
  });

  it('[S1.2.1-26] a cron expression wins over an own interval and fires at its next occurrence (UTC)', () => {
    const target = candidate({ scanIntervalMinutes: 1, scanCron: '0 3 * * *' });
    expect(nextDueAt(target, '2024-06-05T03:00:00Z', weekly, now)!.toISOString()).to.equal('2024-06-06T03:00:00.000Z');
  });

  it('an instant written by an instance whose clock ran ahead counts as now, not later', () => {
    const target = candidate({ scanIntervalMinutes: 60 });
    expect(nextDueAt(target, '2099-01-01T00:00:00Z', weekly, now)!.toISOString()).to.equal('2024-06-05T13:00:00.000Z');
  });

  it('[S1.2.1-14] a target moved to the default by the upgrade is not due at the upgrade, but at its slot within the next interval', () => {
    const upgrade = new Date('2024-06-05T12:00:00Z');
    const target = candidate({ id: 5 });
    const due = nextDueAt(target, upgrade, weekly, upgrade)!;
    expect(due.getTime()).to.be.greaterThan(upgrade.getTime());
    expect(due.getTime() - upgrade.getTime()).to.be.at.most(WEEK_MINUTES * MINUTE);
    expect(round([{ ...target, lastScheduledScanAt: upgrade }], upgrade)).to.deep.equal([]);
    expect(round([{ ...target, lastScheduledScanAt: upgrade }], due)).to.deep.equal(['repository:5']);
  });
});

describe('a scheduling round', () => {
  it('picks targets whose next scheduled scan is due, and only those', () => {
    const targets = [
      candidate({ id: 1, scanIntervalMinutes: 60, lastScheduledScanAt: minutesBefore(now, 60) }),
      candidate({ id: 2, scanIntervalMinutes: 60, lastScheduledScanAt: minutesBefore(now, 59) }),
      candidate({ id: 3, scanManualOnly: true, lastScheduledScanAt: minutesBefore(now, 100_000) }),
      candidate({ id: 4, scanCron: '0 12 * * *', lastScheduledScanAt: '2024-06-05T11:59:00Z' }),
      candidate({ id: 5, scanCron: '0 12 * * *', lastScheduledScanAt: '2024-06-05T12:00:00Z' }),
    ];
    expect(round(targets)).to.deep.equal(['repository:1', 'repository:4']);
  });

  it('[S1.2.1-32] skips a target while a scan of it is pending or running', () => {
    const target = candidate({ id: 1, scanIntervalMinutes: 60, lastScheduledScanAt: minutesBefore(now, 600) });
    expect(round([target], now, weekly, new Set([targetRef('repository', 1)]))).to.deep.equal([]);
    expect(round([target], now, weekly, new Set([targetRef('container', 1)]))).to.deep.equal(['repository:1']);
  });

  it('says which mode made each target due', () => {
    const due = decideSchedulingRound([
      candidate({ id: 1, kind: 'container', scanIntervalMinutes: 5 }),
      candidate({ id: 2, scanCron: '* * * * *' }),
      candidate({ id: 3 }),
    ], now, weekly, new Set());
    expect(due).to.deep.equal([
      { ref: 'container:1', kind: 'container', id: 1, mode: 'interval' },
      { ref: 'repository:2', kind: 'repository', id: 2, mode: 'cron' },
      { ref: 'repository:3', kind: 'repository', id: 3, mode: 'default' },
    ]);
  });

  it('agrees with nextDueAt for every target, over many instants', () => {
    const crons = ['*/7 * * * *', '0 3 * * *', '15 */4 * * 1-5', '0 0 1 * *'];
    const targets: SchedulingCandidate[] = [];
    for (let id = 1; id <= 400; id++) {
      targets.push(candidate({
        id, kind: id % 3 === 0 ? 'container' : 'repository',
        scanManualOnly: id % 11 === 0,
        scanIntervalMinutes: id % 11 !== 0 && id % 4 === 1 ? 30 + id : null,
        scanCron: id % 11 !== 0 && id % 4 === 2 ? crons[id % crons.length] : null,
        lastScheduledScanAt: id % 5 === 0 ? null : minutesBefore(now, (id * 97) % 20_000),
      }));
    }
    for (let step = 0; step < 12; step++) {
      const at = new Date(now.getTime() + step * 1_333 * MINUTE);
      const expected = targets.filter((t) => {
        const due = nextDueAt(t, t.lastScheduledScanAt, weekly, at);
        return due !== null && due.getTime() <= at.getTime();
      }).map((t) => targetRef(t.kind, t.id));
      expect(round(targets, at)).to.deep.equal(expected);
    }
  });

  it('decides 20,000 targets correctly in one round', () => {
    // Each target is built due or not due by construction; every fourth is busy.
    const crons = ['0 * * * *', '30 11 * * *', '0 12 * * 3', '*/10 * * * *', '0 0 1 * *'];
    const targets: SchedulingCandidate[] = [];
    const busy = new Set<TargetRef>();
    const expected: TargetRef[] = [];
    for (let id = 1; id <= 20_000; id++) {
      const kind = id % 2 === 0 ? 'container' : 'repository';
      const shouldBeDue = id % 3 !== 0;
      const isBusy = id % 4 === 0;
      let target: SchedulingCandidate;
      switch (id % 4) {
        case 0:
        case 1: {
          const interval = 60 + (id % 500);
          target = candidate({ kind, id, scanIntervalMinutes: interval, lastScheduledScanAt: minutesBefore(now, shouldBeDue ? interval : interval - 1) });
          break;
        }
        case 2: {
          const cron = crons[id % crons.length];
          const latest = new Date(decideLatest(cron));
          target = candidate({ kind, id, scanCron: cron, lastScheduledScanAt: shouldBeDue ? minutesBefore(latest, 1) : latest });
          break;
        }
        default: {
          const slotOffset = defaultSlotOffsetMinutes(kind, id, WEEK_MINUTES);
          const latestSlot = Math.floor((now.getTime() - slotOffset * MINUTE) / (WEEK_MINUTES * MINUTE)) * WEEK_MINUTES * MINUTE + slotOffset * MINUTE;
          target = candidate({ kind, id, lastScheduledScanAt: new Date(shouldBeDue ? latestSlot - MINUTE : latestSlot) });
        }
      }
      if (id % 97 === 0) target = { ...target, scanManualOnly: true, scanIntervalMinutes: null, scanCron: null };
      targets.push(target);
      if (isBusy) busy.add(targetRef(kind, id));
      if (shouldBeDue && !isBusy && id % 97 !== 0) expected.push(targetRef(kind, id));
    }
    const due = decideSchedulingRound(targets, now, weekly, busy);
    expect(due.map((d) => d.ref)).to.deep.equal(expected);
    expect(expected.length).to.be.greaterThan(9_000);
  });
});

/** The latest occurrence at or before `now`, found the slow way: walking forward through nextDueAt from 32 days back. */
const latestByCron = new Map<string, number>();
function decideLatest(cron: string): number {
  const known = latestByCron.get(cron);
  if (known !== undefined) return known;
  const probe = candidate({ scanCron: cron });
  let latest = nextDueAt(probe, minutesBefore(now, 32 * 1440), weekly, now)!.getTime();
  for (;;) {
    const next = nextDueAt(probe, new Date(latest), weekly, now)!.getTime();
    if (next > now.getTime()) break;
    latest = next;
  }
  latestByCron.set(cron, latest);
  return latest;
}
