import { expect } from 'chai';
import { RequestContext } from '../../application/command-handler';
import { fold } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import { TRIAGE_EVENT_TYPES, triageDecider, type TriageCommand, type TriageStreamEvent } from '../../domain/triage';
import { seedFindings } from '../support/backlog';
import { RunningVigil, startVigil } from '../support/vigil';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const alice = '101';
const bob = '102';

/**
 * The `issues` read model folds an issue's stream with the triage decider's own rule
 * (domain/triage/triage-change.ts): after every kind of triage event its triage columns are the
 * decider's state, and a rebuild from the log gives the same rows.
 */
describe('Projections: the backlog read model (issues) and the triage decider', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  const ctx: RequestContext = { actor: null, now: T0 };
  const decide = (key: string, command: TriageCommand) => v.services.commands.execute(streams.issue(key), triageDecider, command, ctx);
  const rows = async () => v.database.db.knex('issues').orderBy('id').select('*');

  before(async () => {
    v = await startVigil();
    const admin = await v.signIn();
    const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/backlog/projection' } })).body.id;
    const target = { kind: 'repository' as const, id: repo };
    const rules = ['R-decided', 'R-extended', 'R-approved', 'R-refused', 'R-proposed', 'R-contradicted', 'R-resolved'];
    await seedFindings(v, target, rules.map((ruleId) => ({ ruleId })));
    const keys = Object.fromEntries((await rows()).map((r) => [r.rule_id, r.issue_key as string]));

    // Every triage event type at least once, with four-eyes on and off.
    await decide(keys['R-decided'], { type: 'Triage', status: 'not_affected', justification: 'code_not_reachable', comment: 'dead code', actor: alice, fourEyes: false, now: T0 });
    await decide(keys['R-decided'], { type: 'ExceptionReview', action: 'confirm', actor: bob, fourEyes: true, now: T0 });
    await decide(keys['R-decided'], { type: 'ExceptionReview', action: 'revoke', comment: 'reachable after all', actor: bob, fourEyes: true, now: T0 });
    await decide(keys['R-extended'], { type: 'Triage', status: 'will_not_fix', expiresInDays: 30, actor: alice, fourEyes: false, now: T0 });
    await decide(keys['R-extended'], { type: 'ExceptionReview', action: 'extend', expiresInDays: 60, actor: bob, fourEyes: true, now: T0 });
    await decide(keys['R-approved'], { type: 'Triage', status: 'will_not_fix', expiresInDays: 10, comment: 'waf', actor: alice, fourEyes: true, now: T0 });
    await decide(keys['R-approved'], { type: 'ApproveTriage', status: 'will_not_fix', actor: bob, now: T0 });
    await decide(keys['R-approved'], { type: 'ReviewDateReached', now: new Date('2026-03-20T00:00:00.000Z') });
    await decide(keys['R-refused'], { type: 'Triage', status: 'fixed', actor: alice, fourEyes: true, now: T0 });
    await decide(keys['R-refused'], { type: 'RefuseTriage', status: 'affected', comment: 'not yet', actor: bob, now: T0 });
    await decide(keys['R-proposed'], { type: 'ProposeTriage', closing: 'refusal', integration: 'jira:SEC', reportedBy: 'Carol', now: T0 });
    await decide(keys['R-contradicted'], { type: 'Triage', status: 'fixed', actor: alice, fourEyes: false, now: T0 });
    await decide(keys['R-contradicted'], { type: 'ProposeTriage', closing: 'false_positive', integration: 'jira:SEC', now: T0 });
    // A report without R-resolved resolves it; the next one with it reopens it.
    await seedFindings(v, target, rules.filter((r) => r !== 'R-resolved').map((ruleId) => ({ ruleId })));
    await seedFindings(v, target, rules.map((ruleId) => ({ ruleId })));
  });
  after(async () => { await v.stop(); });

  it('writes each issue\'s triage columns, lifecycle and revision as the decider folds its stream, after every kind of triage event', async () => {
    const seen = new Set<string>();
    for (const row of await rows()) {
      const recorded = await v.services.store.readStream(streams.issue(row.issue_key));
      for (const e of recorded) seen.add(e.type);
      const state = fold(triageDecider, recorded.map((e) => ({ type: e.type, data: e.data }) as TriageStreamEvent));
      expect({
        triageStatus: row.triage_status, triageRequestedStatus: row.triage_requested_status, justification: row.justification, reviewDate: row.review_date,
        open: row.status === 'open', revision: Number(row.revision),
      }, row.rule_id).to.deep.equal({
        triageStatus: state.triageStatus, triageRequestedStatus: state.triageRequestedStatus, justification: state.justification, reviewDate: state.reviewDate,
        open: state.open, revision: recorded[recorded.length - 1].revision,
      });
    }
    for (const type of [...TRIAGE_EVENT_TYPES, 'IssueDetected', 'IssueResolved', 'IssueReopened']) expect(seen, type).to.include(type);
  });

  it('IssueDetected events without owaspCategories (before issue #16) or with values that are no category code still project; codes are kept in normal form', async () => {
    const admin = await v.signIn();
    const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/backlog/owasp' } })).body.id;
    await seedFindings(v, { kind: 'repository', id: repo }, [
      { ruleId: 'R-none' },
      { ruleId: 'R-mixed', owaspCategories: ['A3:2017', 'bogus', 7, 'a03:2017', 'A10:2021'] as never },
      { ruleId: 'R-not-a-list', owaspCategories: 'A03:2021' as never },
    ], { toolKey: 'scanner:sast' });
    const issues = await v.database.db.knex('issues').where({ target_id: repo }).orderBy('id').select('id', 'rule_id');
    expect(issues.map((r) => r.rule_id)).to.deep.equal(['R-none', 'R-mixed', 'R-not-a-list']);
    const categories = await v.database.db.knex('issue_owasp_categories').whereIn('issue_id', issues.map((r) => r.id)).orderBy(['issue_id', 'category']).select('issue_id', 'category');
    expect(categories.map((r) => [Number(r.issue_id), r.category])).to.deep.equal([[Number(issues[1].id), 'A03:2017'], [Number(issues[1].id), 'A10:2021']]);
    const page = await v.request('GET', `/issues?repository_id=${repo}`, { token: admin });
    expect(page.body.map((i: { owaspCategories: string[] }) => i.owaspCategories)).to.deep.equal([[], ['A03:2017', 'A10:2021'], []]);
  });

  it('rebuilds the same issues rows from the log (trap 2)', async () => {
    const categories = () => v.database.db.knex('issue_owasp_categories').orderBy(['issue_id', 'category']).select('*');
    const before = await rows();
    const categoriesBefore = await categories();
    expect(categoriesBefore).to.have.length(2);
    await v.services.projections.stop();
    await v.services.projections.rebuild();
    expect(await rows()).to.deep.equal(before);
    expect(await categories()).to.deep.equal(categoriesBefore);
    v.services.projections.start();
  });
});
