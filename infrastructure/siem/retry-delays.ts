import { parseDuration, SettingError } from '../config/units';

/** Seven comma-separated durations: the delays before attempts 2 to 8 (spec 2 §3.6: eight attempts over about four hours). */
export function parseRetryDelaysList(setting: string, text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length !== 7 || parts.some((p) => p === '' || p.startsWith('-'))) {
    throw new SettingError(setting, `"${text}" is not seven delays; write seven durations separated by commas (eight attempts), e.g. 1m,4m,10m,20m,40m,60m,105m.`);
  }
  return parts.map((p) => parseDuration(setting, p));
}
