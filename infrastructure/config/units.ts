/**
 * Parsing of the setting forms the specification uses: sizes ("1MB", "16KB"), durations
 * ("12h", "60m", "15s", ISO 8601 "PT5M") and booleans. Each parser throws a message that
 * names the setting and the form it expects, so a refused start says what to fix.
 */
export class SettingError extends Error {
  constructor(readonly setting: string, message: string) {
    super(`${setting}: ${message}`);
    this.name = 'SettingError';
  }
}

const SIZE_UNITS: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3 };

export function parseSize(setting: string, text: string): number {
  const match = /^\s*(\d+)\s*([KMG]?I?B)?\s*$/i.exec(text);
  if (!match) throw new SettingError(setting, `"${text}" is not a size; write a whole number with B, KB, MB or GB, e.g. 1MB or 16KB.`);
  const unit = (match[2] ?? 'B').toUpperCase();
  const factor = SIZE_UNITS[unit];
  if (!factor) throw new SettingError(setting, `unknown size unit "${match[2]}"; use B, KB, MB or GB.`);
  return Number(match[1]) * factor;
}

/** Writes a byte count the way the settings table does (1MB, 16KB), for problem details. */
export function formatSize(bytes: number): string {
  for (const [unit, factor] of [['GB', 1024 ** 3], ['MB', 1024 ** 2], ['KB', 1024]] as const) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  return `${bytes} bytes`;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds from "15s", "60m", "12h", "7d", "250ms" or ISO 8601 "PT5M", "P1D". */
export function parseDuration(setting: string, text: string): number {
  const simple = /^\s*(\d+)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (simple) return Number(simple[1]) * DURATION_UNITS[simple[2]];
  const iso = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(text.trim());
  if (iso && text.trim().length > 1 && !/T$/i.test(text.trim())) {
    const [, d, h, m, s] = iso;
    return (Number(d ?? 0) * 86_400 + Number(h ?? 0) * 3600 + Number(m ?? 0) * 60 + Number(s ?? 0)) * 1000;
  }
  throw new SettingError(setting, `"${text}" is not a duration; write e.g. 15s, 60m, 12h, 7d or ISO 8601 like PT5M.`);
}

export function parseBoolean(setting: string, text: string): boolean {
  const t = text.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(t)) return true;
  if (['false', '0', 'no', 'off'].includes(t)) return false;
  throw new SettingError(setting, `"${text}" is not a boolean; write true or false.`);
}

export function parseInteger(setting: string, text: string, min: number, max: number): number {
  if (!/^\s*-?\d+\s*$/.test(text)) throw new SettingError(setting, `"${text}" is not a whole number.`);
  const n = Number(text);
  if (n < min || n > max) throw new SettingError(setting, `${n} is outside ${min} to ${max}.`);
  return n;
}
