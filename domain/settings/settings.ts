import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';
import { Role } from '../identity/roles';
import { characters, firstRefused } from '../shared/text';

/**
 * Installation settings (GET/PATCH /settings). Each has a type, a default and the roles that may
 * write it (spec 1 §5: administrator unless named otherwise). One stream: `settings`.
 */
interface SettingDefinition {
  kind: 'boolean' | 'integer' | 'string';
  default: boolean | number | string | null;
  writers: readonly Role[];
  min?: number;
  max?: number;
}

export const SETTINGS: Record<string, SettingDefinition> = {
  scan_default_interval_days: { kind: 'integer', default: 7, writers: ['administrator'], min: 0, max: 365 },
  triage_four_eyes: { kind: 'boolean', default: false, writers: ['administrator'] },
  notification_allow_private_url: { kind: 'boolean', default: false, writers: ['administrator'] },
  siem_allow_private_destination: { kind: 'boolean', default: false, writers: ['administrator'] },
  ticket_project: { kind: 'string', default: null, writers: ['administrator'] },
  ticket_user: { kind: 'string', default: null, writers: ['administrator'] },
  evidence_retention_days: { kind: 'integer', default: 365, writers: ['platform_governor'], min: 1, max: 36500 },
  remediation_days_critical: { kind: 'integer', default: 7, writers: ['administrator'], min: 1, max: 3650 },
  remediation_days_high: { kind: 'integer', default: 30, writers: ['administrator'], min: 1, max: 3650 },
  remediation_days_medium: { kind: 'integer', default: 90, writers: ['administrator'], min: 1, max: 3650 },
  remediation_days_low: { kind: 'integer', default: 180, writers: ['administrator'], min: 1, max: 3650 },
};

export type SettingValue = boolean | number | string | null;

/** The longest text a setting takes (the request schema reads it too). */
export const SETTING_TEXT_MAX = 500;

export type SettingsEvent = DomainEvent<'SettingChanged', { name: string; value: SettingValue; previous: SettingValue }>;
export type SettingsCommand = { type: 'ChangeSettings'; changes: Record<string, unknown>; actorRoles: readonly Role[] };
export interface SettingsState { values: Record<string, SettingValue> }

export function defaultSettings(): Record<string, SettingValue> {
  return Object.fromEntries(Object.entries(SETTINGS).map(([k, d]) => [k, d.default]));
}

function validate(name: string, value: unknown): SettingValue {
  // An own member only: "__proto__" or "constructor" as a name must not find Object.prototype's.
  const def = Object.hasOwn(SETTINGS, name) ? SETTINGS[name] : undefined;
  if (!def) throw refuse.invalid(`Unknown setting "${name}"; known settings: ${Object.keys(SETTINGS).join(', ')}.`);
  if (def.kind === 'boolean') {
    if (typeof value !== 'boolean') throw refuse.invalid(`Setting ${name} takes true or false.`);
    return value;
  }
  if (def.kind === 'integer') {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < (def.min ?? -Infinity) || value > (def.max ?? Infinity)) {
      throw refuse.invalid(`Setting ${name} takes a whole number from ${def.min} to ${def.max}.`);
    }
    return value;
  }
  if (value !== null && (typeof value !== 'string' || characters(value) > SETTING_TEXT_MAX || firstRefused(value, 'line'))) {
    throw refuse.invalid(`Setting ${name} takes a text of at most ${SETTING_TEXT_MAX} characters without control characters, or null.`);
  }
  return value as string | null;
}

export const settingsDecider: Decider<SettingsCommand, SettingsEvent, SettingsState> = {
  initialState: () => ({ values: defaultSettings() }),
  decide(command, state) {
    switch (command.type) {
      case 'ChangeSettings': {
        const entries = Object.entries(command.changes ?? {});
        if (entries.length === 0) throw refuse.invalid('Name at least one setting to change.');
        const events: SettingsEvent[] = [];
        for (const [name, raw] of entries) {
          const value = validate(name, raw);
          const writers = SETTINGS[name].writers;
          if (!command.actorRoles.some((r) => writers.includes(r))) {
            throw refuse.forbidden(`Setting ${name} is written by ${writers.join(' or ')} only.`);
          }
          if (state.values[name] !== value) events.push({ type: 'SettingChanged', data: { name, value, previous: state.values[name] ?? null } });
        }
        return events;
      }
      default:
        return assertNever(command.type);
    }
  },
  evolve(state, event) {
    return { values: { ...state.values, [event.data.name]: event.data.value } };
  },
};
