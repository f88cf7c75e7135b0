import { Role } from '../../domain/identity/roles';
import { SettingValue, settingsDecider } from '../../domain/settings/settings';
import { CommandHandler, RequestContext } from '../command-handler';
import { streams } from '../../domain/shared/streams';
import { SettingsReader } from './ports';

/**
 * Installation settings: changes go through the settings decider; `all` and `get` read the
 * settings as they stand through the read port, for the contexts that consult a setting.
 */
export class SettingsService {
  constructor(private readonly commands: CommandHandler, private readonly reader: SettingsReader) {}

  async all(): Promise<Record<string, SettingValue>> {
    return this.reader.all();
  }

  async get<T extends SettingValue>(name: string): Promise<T> {
    return (await this.all())[name] as T;
  }

  async change(ctx: RequestContext, roles: readonly Role[], changes: Record<string, unknown>): Promise<void> {
    await this.commands.execute(streams.settings, settingsDecider, { type: 'ChangeSettings', changes, actorRoles: roles }, ctx);
  }
}
