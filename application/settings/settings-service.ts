import { Role } from '../../domain/identity/roles';
import { defaultSettings, SettingValue, settingsDecider } from '../../domain/settings/settings';
import { Database } from '../../infrastructure/db/database';
import { CommandHandler, RequestContext } from '../command-handler';
import { streams } from '../../domain/shared/streams';

/** Installation settings: defaults overlaid with the projected changes. */
export class SettingsService {
  constructor(private readonly db: Database, private readonly commands: CommandHandler) {}

  async all(): Promise<Record<string, SettingValue>> {
    const rows: { name: string; value: string }[] = await this.db.knex('settings').select('name', 'value');
    return { ...defaultSettings(), ...Object.fromEntries(rows.map((r) => [r.name, JSON.parse(r.value)])) };
  }

  async get<T extends SettingValue>(name: string): Promise<T> {
    return (await this.all())[name] as T;
  }

  async change(ctx: RequestContext, roles: readonly Role[], changes: Record<string, unknown>) {
    await this.commands.execute(streams.settings, settingsDecider, { type: 'ChangeSettings', changes, actorRoles: roles }, ctx);
    return this.all();
  }
}
