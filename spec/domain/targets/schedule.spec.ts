import { expect } from 'chai';
import {
  DEFAULT_SCAN_INTERVAL_DAYS, ScheduleInput, scheduleOnCreate, scheduleOnUpdate, ScheduleSettings, scheduleView,
} from '../../../domain/targets/schedule';
import { refusal } from '../../support/decider-spec';

const manual: ScheduleSettings = { scanManualOnly: true, scanIntervalMinutes: null, scanCron: null };
const hourly: ScheduleSettings = { scanManualOnly: false, scanIntervalMinutes: 60, scanCron: null };
const nightly: ScheduleSettings = { scanManualOnly: false, scanIntervalMinutes: 60, scanCron: '0 3 * * *' };
const unset: ScheduleSettings = { scanManualOnly: false, scanIntervalMinutes: null, scanCron: null };

describe('schedule fields on create (§2.1 table)', () => {
  it('nothing named: not manual-only, no interval, no expression', () => {
    expect(scheduleOnCreate({})).to.deep.equal(unset);
  });

  it('[S1.2.1-03] scanManualOnly true with a positive interval: 400', () => {
    const error = refusal(() => scheduleOnCreate({ scanManualOnly: true, scanIntervalMinutes: 30 }));
    expect(error.kind).to.equal('invalid');
    expect(error.message).to.match(/scanManualOnly true cannot be combined with a positive scanIntervalMinutes/);
  });

  it('[S1.2.1-04] scanManualOnly true with a cron expression: 400', () => {
    const error = refusal(() => scheduleOnCreate({ scanManualOnly: true, scanCron: '0 3 * * *' }));
    expect(error.kind).to.equal('invalid');
    expect(error.message).to.match(/scanManualOnly true cannot be combined with a scanCron expression/);
  });

  it('[S1.2.1-02] scanManualOnly true with interval 0 or no expression is accepted, both read back null', () => {
    expect(scheduleOnCreate({ scanManualOnly: true, scanIntervalMinutes: 0, scanCron: null })).to.deep.equal(manual);
    expect(scheduleOnCreate({ scanManualOnly: true, scanCron: '  ' })).to.deep.equal(manual);
  });

  it('[S1.2.1-06] scanIntervalMinutes 0 means unset and reads back as null', () => {
    expect(scheduleOnCreate({ scanIntervalMinutes: 0 }).scanIntervalMinutes).to.equal(null);
    expect(scheduleView(scheduleOnCreate({ scanIntervalMinutes: 0 }), 7).mode).to.equal('default');
  });

  it('[S1.2.1-07] a negative scanIntervalMinutes: 400', () => {
    expect(refusal(() => scheduleOnCreate({ scanIntervalMinutes: -1 })).message).to.match(/must not be negative/);
  });

  it('a fractional or non-numeric interval, a non-boolean scanManualOnly or a non-string expression: 400', () => {
    expect(refusal(() => scheduleOnCreate({ scanIntervalMinutes: 1.5 })).kind).to.equal('invalid');
    expect(refusal(() => scheduleOnCreate({ scanIntervalMinutes: '5' as unknown as number })).kind).to.equal('invalid');
    expect(refusal(() => scheduleOnCreate({ scanManualOnly: null as unknown as boolean })).kind).to.equal('invalid');
    expect(refusal(() => scheduleOnCreate({ scanCron: 5 as unknown as string })).kind).to.equal('invalid');
    expect(refusal(() => scheduleOnCreate({ scanIntervalMinutes: 100 * 365 * 1440 + 1 })).message).to.match(/at most/);
  });

  it('an invalid cron expression: 400 with the cron detail', () => {
    expect(refusal(() => scheduleOnCreate({ scanCron: '0 0 3 * * *' })).message).to.match(/expected five fields/);
  });

  it('an interval and an expression may both be kept (cron wins, see precedence)', () => {
    expect(scheduleOnCreate({ scanIntervalMinutes: 60, scanCron: '0 3 * * *' })).to.deep.equal(nightly);
  });
});

describe('schedule fields on update (PATCH)', () => {
  const update = (current: ScheduleSettings, patch: ScheduleInput) => scheduleOnUpdate(current, patch);

  it('[S1.2.1-02] setting scanManualOnly true clears the interval and the expression', () => {
    expect(update(nightly, { scanManualOnly: true })).to.deep.equal(manual);
  });

  it('[S1.2.1-03] scanManualOnly true with a positive interval in the same PATCH: 400', () => {
    expect(refusal(() => update(unset, { scanManualOnly: true, scanIntervalMinutes: 10 })).kind).to.equal('invalid');
  });

  it('[S1.2.1-04] scanManualOnly true with an expression in the same PATCH: 400', () => {
    expect(refusal(() => update(hourly, { scanManualOnly: true, scanCron: '*/5 * * * *' })).kind).to.equal('invalid');
  });

  it('[S1.2.1-05] naming an interval without scanManualOnly takes a target out of manual-only', () => {
    expect(update(manual, { scanIntervalMinutes: 120 })).to.deep.equal({ scanManualOnly: false, scanIntervalMinutes: 120, scanCron: null });
  });

  it('[S1.2.1-05] naming an expression without scanManualOnly takes a target out of manual-only', () => {
    expect(update(manual, { scanCron: '0 3 * * *' })).to.deep.equal({ scanManualOnly: false, scanIntervalMinutes: null, scanCron: '0 3 * * *' });
  });

  it('[S1.2.1-05] naming an interval of 0 (or a null expression) also leaves manual-only: the default then applies', () => {
    expect(update(manual, { scanIntervalMinutes: 0 })).to.deep.equal(unset);
    expect(update(manual, { scanCron: null })).to.deep.equal(unset);
  });

  it('a PATCH naming no schedule field keeps manual-only', () => {
    expect(update(manual, {})).to.deep.equal(manual);
  });

  it('scanManualOnly false alone leaves a manual-only target under the default', () => {
    expect(update(manual, { scanManualOnly: false })).to.deep.equal(unset);
  });

  it('[S1.2.1-06] [S1.2.1-07] interval 0 unsets, negative is refused, on update too', () => {
    expect(update(hourly, { scanIntervalMinutes: 0 })).to.deep.equal(unset);
    expect(refusal(() => update(hourly, { scanIntervalMinutes: -5 })).kind).to.equal('invalid');
  });

  it('fields not named keep their values', () => {
    expect(update(nightly, { scanIntervalMinutes: 30 })).to.deep.equal({ ...nightly, scanIntervalMinutes: 30 });
    expect(update(nightly, { scanCron: '' })).to.deep.equal(hourly);
  });
});

describe('schedule view and precedence', () => {
  it('[S1.2.1-25] [S1.2.1-11] manual-only gives mode manual with intervalMinutes null', () => {
    expect(scheduleView(manual, 7)).to.deep.equal({ mode: 'manual', intervalMinutes: null });
  });

  it('[S1.2.1-26] [S1.2.1-10] a cron expression gives mode cron even with an own interval, intervalMinutes null', () => {
    expect(scheduleView(nightly, 7)).to.deep.equal({ mode: 'cron', intervalMinutes: null });
  });

  it('[S1.2.1-27] [S1.2.1-13] an own interval without expression gives mode interval with that interval', () => {
    expect(scheduleView(hourly, 7)).to.deep.equal({ mode: 'interval', intervalMinutes: 60 });
  });

  it('[S1.2.1-28] [S1.2.1-13] nothing set gives mode default with the installation default (7 days = 10080)', () => {
    expect(scheduleView(unset, DEFAULT_SCAN_INTERVAL_DAYS)).to.deep.equal({ mode: 'default', intervalMinutes: 10080 });
    expect(scheduleView(unset, 1)).to.deep.equal({ mode: 'default', intervalMinutes: 1440 });
  });

  it('[S1.2.1-12] mode default when the installation has no default (0 days): intervalMinutes null', () => {
    expect(scheduleView(unset, 0)).to.deep.equal({ mode: 'default', intervalMinutes: null });
  });

  it('[S1.2.1-29] the installation default is 7 days', () => {
    expect(DEFAULT_SCAN_INTERVAL_DAYS).to.equal(7);
  });

  it('[S1.2.1-08] [S1.2.1-09] the view is read-only and its mode one of the four', () => {
    for (const settings of [manual, nightly, hourly, unset]) {
      const view = scheduleView(settings, 7);
      expect(Object.isFrozen(view)).to.equal(true);
      expect(['manual', 'cron', 'interval', 'default']).to.include(view.mode);
      expect(Object.keys(view)).to.deep.equal(['mode', 'intervalMinutes']);
    }
  });
});
