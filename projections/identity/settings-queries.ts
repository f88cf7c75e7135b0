import { SettingsReader } from '../../application/settings/ports';
import { defaultSettings, SettingValue } from '../../domain/settings/settings';
import { Database } from '../../infrastructure/db/database';

/** Installation settings: the defaults overlaid with the projected changes (`settings`). */
export class SettingsQueries implements SettingsReader {
  constructor(private readonly db: Database) {}

  async all(): Promise<Record<string, SettingValue>> {
    const rows: { name: string; value: string }[] = await this.db.knex('settings').select('name', 'value');
    return { ...defaultSettings(), ...Object.fromEntries(rows.map((r) => [r.name, JSON.parse(r.value)])) };
  }
}
