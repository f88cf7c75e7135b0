import type { SettingValue } from '../../domain/settings/settings';

/** The installation settings as they stand (projections/identity/settings-queries.ts). */
export interface SettingsReader {
  all(): Promise<Record<string, SettingValue>>;
}
