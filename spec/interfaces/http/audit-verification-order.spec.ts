import { expect } from 'chai';
import { RunningVigil, startVigil } from '../../support/vigil';

/**
 * GET /audit-log/verification walks the events in cursor order, (commit id, position). Its query
 * selected `commit_id::text AS commit_id` and ordered by `commit_id`, which SQL reads as the text
 * column of the answer: once transaction ids passed from three digits to four ("1000" < "772"),
 * the walk began at the first four-digit commit and the intact chain was reported broken at entry
 * 1 (found by the web interface's end-to-end suite, which had grown past that many transactions).
 */
describe('audit chain verification past the thousandth transaction', function () {
  this.timeout(180_000);
  let v: RunningVigil;
  before(async () => { v = await startVigil(); });
  after(async () => { await v?.stop(); });

  it('[#13] an intact chain verifies whatever the number of digits of the commit ids', async () => {
    const token = await v.signIn();
    const newestCommit = async () => Number((await v.database.db.knex.raw('SELECT max(commit_id)::text AS m FROM events')).rows[0].m ?? '0');
    const start = await newestCommit();
    // Enough commits that the ids cross a power of ten (each sign-in commits one event).
    const target = 10 ** String(start).length;
    for (let i = 0; (await newestCommit()) <= target + 5 && i < 2000; i++) await v.signIn();
    expect(await newestCommit()).to.be.greaterThan(target);
    const verdict = (await v.request('GET', '/audit-log/verification', { token })).body;
    expect(verdict).to.include({ valid: true, brokenAt: null, reason: null });
  });
});
