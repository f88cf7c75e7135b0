import { expect } from 'chai';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../../infrastructure/config/config';
import { SettingError } from '../../../infrastructure/config/units';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('Settings read at start', () => {
  it('[S1.8.3-05] [S1.8.3-25] [S1.8.3-30] has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).to.equal(3180);
    expect(c.passwordLogin).to.equal(true);
    expect(c.sessionLifetimeMs).to.equal(12 * 3600_000);
    expect(c.sessionIdleMs).to.equal(60 * 60_000);
    expect(c.apiDocsEnabled).to.equal(false);
    expect(c.bodyLimits.default).to.equal(1024 * 1024);
    expect(c.bodyLimits.signIn).to.equal(16 * 1024);
    expect(c.bodyLimits.sarifImport).to.equal(32 * 1024 * 1024);
    expect(c.bodyLimits.agentResult).to.equal(256 * 1024 * 1024);
    expect(c.bearerFailureWindowMs).to.equal(5 * 60_000);
    expect(c.apiKeyRequestsPerMinute).to.equal(600);
  });

  it('[S1.8.3-02] keeps everything in embedded PGlite under VIGIL_DATA_DIR when VIGIL_DB_URL is unset', () => {
    const c = loadConfig({ VIGIL_DATA_DIR: '/tmp/vigil-x' });
    expect(c.database).to.deep.equal({ engine: 'pglite', dataDir: '/tmp/vigil-x/pglite' });
  });

  it('[S1.8.3-01] [S1.8.3-03] [S1.8.3-04] reads the engine from JDBC and native URLs; user vigil and empty password by default', () => {
    expect(loadConfig({ VIGIL_DB_URL: 'jdbc:mysql://db.local:3306/vigil' }).database).to.include({ engine: 'mysql', host: 'db.local', port: 3306, database: 'vigil', user: 'vigil', password: '' });
    expect(loadConfig({ VIGIL_DB_URL: 'jdbc:postgresql://db.local/vigil', VIGIL_DB_USER: 'svc', VIGIL_DB_PASSWORD: 'pw' }).database).to.include({ engine: 'postgres', port: 5432, user: 'svc', password: 'pw' });
    expect(loadConfig({ VIGIL_DB_URL: 'postgres://u:p@h:6543/d' }).database).to.include({ engine: 'postgres', host: 'h', port: 6543, database: 'd', user: 'u', password: 'p' });
    expect(loadConfig({ VIGIL_DB_URL: 'jdbc:mariadb://h/d' }).database).to.include({ engine: 'mysql' });
  });

  const refused = (env: Record<string, string>, pattern: RegExp) => {
    expect(() => loadConfig(env)).to.throw(SettingError, pattern);
  };

  it('refuses malformed settings at start with the variable and the expected form', () => {
    refused({ VIGIL_DB_URL: 'oracle://h/d' }, /VIGIL_DB_URL.*postgresql or mysql/);
    refused({ VIGIL_DB_URL: 'not a url' }, /VIGIL_DB_URL/);
    refused({ VIGIL_PORT: 'eighty' }, /VIGIL_PORT/);
    refused({ VIGIL_HTTP_KEEP_ALIVE_TIMEOUT: '500ms' }, /VIGIL_HTTP_KEEP_ALIVE_TIMEOUT.*1s to 10m/);
    refused({ VIGIL_HTTP_KEEP_ALIVE_TIMEOUT: 'soon' }, /VIGIL_HTTP_KEEP_ALIVE_TIMEOUT/);
    refused({ VIGIL_SESSION_IDLE: 'soon' }, /VIGIL_SESSION_IDLE.*duration/);
    refused({ VIGIL_MAX_BODY_DEFAULT: 'big' }, /VIGIL_MAX_BODY_DEFAULT.*size/);
    refused({ VIGIL_API_DOCS_ENABLED: 'maybe' }, /VIGIL_API_DOCS_ENABLED.*true or false/);
    refused({ VIGIL_EVENTSTORE_URL: 'http://x' }, /esdb:\/\//);
  });

  it('reads VIGIL_AGENT_REPORTS_AT_ONCE (default 4, 1 to 256) and refuses anything else', () => {
    expect(loadConfig({}).scans.agentReportsAtOnce).to.equal(4);
    expect(loadConfig({ VIGIL_AGENT_REPORTS_AT_ONCE: '16' }).scans.agentReportsAtOnce).to.equal(16);
    refused({ VIGIL_AGENT_REPORTS_AT_ONCE: '0' }, /VIGIL_AGENT_REPORTS_AT_ONCE.*outside 1/);
    refused({ VIGIL_AGENT_REPORTS_AT_ONCE: '257' }, /VIGIL_AGENT_REPORTS_AT_ONCE.*outside 1/);
    refused({ VIGIL_AGENT_REPORTS_AT_ONCE: 'some' }, /VIGIL_AGENT_REPORTS_AT_ONCE.*whole number/);
  });

  it('reads the password throttle (10 per account, 50 per address, 15 minutes) and refuses a malformed ceiling or window', () => {
    expect(loadConfig({}).signInThrottle).to.deep.equal({ perAccount: 10, perAddress: 50, windowMs: 15 * 60_000 });
    expect(loadConfig({ VIGIL_SIGN_IN_FAILURES_PER_ACCOUNT: '5', VIGIL_SIGN_IN_FAILURES_PER_ADDRESS: '20', VIGIL_SIGN_IN_FAILURE_WINDOW: 'PT1H' }).signInThrottle)
      .to.deep.equal({ perAccount: 5, perAddress: 20, windowMs: 3600_000 });
    refused({ VIGIL_SIGN_IN_FAILURES_PER_ACCOUNT: '0' }, /VIGIL_SIGN_IN_FAILURES_PER_ACCOUNT.*outside 1/);
    refused({ VIGIL_SIGN_IN_FAILURES_PER_ADDRESS: 'many' }, /VIGIL_SIGN_IN_FAILURES_PER_ADDRESS.*whole number/);
    refused({ VIGIL_SIGN_IN_FAILURE_WINDOW: '0s' }, /VIGIL_SIGN_IN_FAILURE_WINDOW.*longer than zero/);
    refused({ VIGIL_SIGN_IN_FAILURE_WINDOW: 'soon' }, /VIGIL_SIGN_IN_FAILURE_WINDOW.*duration/);
  });

  it('[S1.5-20] [S1.8.3-23] refuses a bootstrap password under 12 characters', () => {
    refused({ VIGIL_BOOTSTRAP_USERNAME: 'admin', VIGIL_BOOTSTRAP_PASSWORD: 'short' }, /at least 12/);
  });

  it('[S1.8.3-12] accepts ENCRYPTION_KEY as 32 bytes in base64 and refuses anything else naming the form', () => {
    expect(loadConfig({ ENCRYPTION_KEY: KEY }).encryptionKey!.length).to.equal(32);
    refused({ ENCRYPTION_KEY: 'hunter2' }, /32 random bytes written in base64/);
    refused({ ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') }, /32 random bytes/);
  });

  it('[S1.8.3-10] refuses ENCRYPTION_KEY and ENCRYPTION_KEY_FILE both set', () => {
    refused({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_FILE: '/etc/hostname' }, /both set/);
  });

  it('[S1.8.3-11] stops on an ENCRYPTION_KEY_FILE that cannot be read; reads one that can', () => {
    refused({ ENCRYPTION_KEY_FILE: '/nonexistent/key' }, /cannot be read/);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-')), 'key');
    fs.writeFileSync(file, `${KEY}\n`);
    expect(loadConfig({ ENCRYPTION_KEY_FILE: file }).encryptionKey!.toString('base64')).to.equal(KEY);
  });

  it('[S1.8.3-18] reads previous keys, comma or newline separated', () => {
    const other = Buffer.alloc(32, 9).toString('base64');
    expect(loadConfig({ VIGIL_PREVIOUS_ENCRYPTION_KEYS: `${KEY},${other}` }).previousEncryptionKeys).to.have.length(2);
  });

  it('[S1.8.3-06] ignores VIGIL_TRUSTED_PROXIES when empty', () => {
    expect(loadConfig({}).trustedProxies).to.deep.equal([]);
    expect(loadConfig({ VIGIL_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1' }).trustedProxies).to.deep.equal(['10.0.0.0/8', '192.0.2.1']);
  });
});
