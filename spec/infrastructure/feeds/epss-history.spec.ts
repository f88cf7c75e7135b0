import { expect } from 'chai';
import { deleteEpssGenerationsBefore, epssScoresOf } from '../../../infrastructure/feeds/epss-table';
import { describeEachEngine } from '../../support/databases';

describeEachEngine('EPSS generations replaced: the backlog\'s scores kept for as_of (epss_score_history, v030)', ({ get }) => {
  it('keeps the scores an older generation gave the CVEs issues name, drops the rest, and answers a generation\'s scores from whichever table holds them', async () => {
    const k = get().db.knex;
    const issue = (id: number, identifier: string | null) => ({
      id, issue_key: `key-${id}`, target_kind: 'repository', target_id: 1, type: 'vulnerability', tool_key: 'scanner:x', tool_name: 'x', tool_version: null,
      source_slug: null, origin: 'scan', rule_id: identifier ?? 'rule', path: '', line: null, severity: 'high', identifier, package_name: null, package_version: null,
      fixable: null, title: 't', kev: null, epss: null, status: 'open', triage_status: 'under_review', first_seen_at: '2026-01-01T00:00:00.000Z',
      last_seen_at: '2026-01-01T00:00:00.000Z', resolved_at: null, revision: 0,
    });
    await k('issues').insert([issue(1, 'CVE-2024-0001'), issue(2, null), issue(3, 'CVE-2024-0001')]);
    await k('epss_scores').insert([
      { generation: 1, cve: 'CVE-2024-0001', score: 0.1, percentile: 0.5 }, { generation: 1, cve: 'CVE-2024-0002', score: 0.2, percentile: 0.6 },
      { generation: 2, cve: 'CVE-2024-0001', score: 0.3, percentile: 0.7 },
    ]);
    await deleteEpssGenerationsBefore(get().db, 2);
    // Twice (a retried synchronisation): the kept rows are not duplicated.
    await deleteEpssGenerationsBefore(get().db, 2);
    expect((await k('epss_scores').select('generation').orderBy('generation')).map((r) => Number(r.generation))).to.deep.equal([2]);
    expect((await k('epss_score_history').select('generation', 'cve', 'score')).map((r) => [Number(r.generation), r.cve, Number(r.score)])).to.deep.equal([[1, 'CVE-2024-0001', 0.1]]);
    expect(Object.fromEntries(await epssScoresOf(get().db, 1, ['CVE-2024-0001', 'CVE-2024-0002']))).to.deep.equal({ 'CVE-2024-0001': 0.1 });
    expect(Object.fromEntries(await epssScoresOf(get().db, 2, ['CVE-2024-0001']))).to.deep.equal({ 'CVE-2024-0001': 0.3 });
  });
});
