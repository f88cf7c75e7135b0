import { SettingError } from './units';

export type DatabaseTarget =
  | { engine: 'pglite'; dataDir: string }
  | { engine: 'postgres' | 'mysql'; host: string; port: number; database: string; user: string; password: string; params: Record<string, string> };

/**
 * VIGIL_DB_URL in the specification's JDBC form (jdbc:mysql://host:3306/vigil,
 * jdbc:postgresql://host/vigil, jdbc:mariadb://...) or the usual postgres:// and mysql:// forms.
 * Credentials in the URL win over VIGIL_DB_USER / VIGIL_DB_PASSWORD. Unset: embedded PGlite.
 */
export function parseDatabaseUrl(url: string | undefined, user: string, password: string, dataDir: string): DatabaseTarget {
  if (url === undefined || url.trim() === '') return { engine: 'pglite', dataDir };
  const text = url.trim().replace(/^jdbc:/i, '');
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new SettingError('VIGIL_DB_URL', `"${url}" is not a database URL; write e.g. jdbc:postgresql://localhost:5432/vigil or mysql://localhost:3306/vigil.`);
  }
  const scheme = parsed.protocol.replace(/:$/, '').toLowerCase();
  const engine = scheme === 'postgresql' || scheme === 'postgres' ? 'postgres' : scheme === 'mysql' || scheme === 'mariadb' ? 'mysql' : null;
  if (!engine) throw new SettingError('VIGIL_DB_URL', `engine "${scheme}" is not supported; use postgresql or mysql (MariaDB).`);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!database) throw new SettingError('VIGIL_DB_URL', `"${url}" names no database; add one after the host, e.g. /vigil.`);
  const params: Record<string, string> = {};
  parsed.searchParams.forEach((v, k) => (params[k] = v));
  return {
    engine,
    host: parsed.hostname || 'localhost',
    port: parsed.port ? Number(parsed.port) : engine === 'postgres' ? 5432 : 3306,
    database,
    user: parsed.username ? decodeURIComponent(parsed.username) : params.user ?? user,
    password: parsed.password ? decodeURIComponent(parsed.password) : params.password ?? password,
    params,
  };
}
