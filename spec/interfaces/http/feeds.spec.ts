import { expect } from 'chai';
import { ManualClock } from '../../../application/ports/clock';
import { issueKey } from '../../../domain/backlog/issue';
import { allProjections } from '../../../projections';
import { ProjectionRunner } from '../../../projections/engine/projection-runner';
import { seedFindings } from '../../support/backlog';
import { requireCorpus } from '../../support/corpus';
import { RunningVigil, startVigil } from '../../support/vigil';
import { epssCsv, excerptRow, gz, gzipBomb, KEV_CSV, KEV_NEW, KEV_OLD, Mirror } from '../../infrastructure/enrichment/mirror';

const KEV_PATH = '/feeds/known_exploited_vulnerabilities.json';
const EPSS_PATH = '/feeds/epss_scores-current.csv.gz';
const SWITCHES_ON = { VIGIL_KEV_ALLOW_PRIVATE: 'true', VIGIL_EPSS_ALLOW_PRIVATE: 'true' };

type Catalogue = { catalogVersion: string; dateReleased: string; count: number; vulnerabilities: Array<{ cveID: string; [k: string]: unknown }> };
const catalogue = (bytes: Buffer): Catalogue => JSON.parse(bytes.toString('utf8'));
/** The newer snapshot as a later release: another version and date, entries removed or kept. */
function release(version: string, dateReleased: string, keep: (cve: string) => boolean = () => true): string {
  const doc = catalogue(KEV_NEW());
  doc.catalogVersion = version;
  doc.dateReleased = dateReleased;
  doc.vulnerabilities = doc.vulnerabilities.filter((v) => keep(v.cveID));
  doc.count = doc.vulnerabilities.length;
  return JSON.stringify(doc, null, 4);
}

async function streamEvents(v: RunningVigil, stream: string): Promise<Array<{ type: string; data: any }>> {
  const rows: Array<{ type: string; data: string }> = await v.database.db.knex('events').where('stream_id', stream).orderBy('revision');
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.data) }));
}

describe('Enrichment feeds over HTTP: KEV and EPSS from a loopback mirror', function () {
  requireCorpus(this);
  this.timeout(60_000);
  let mirror: Mirror;
  let v: RunningVigil;
  let admin: string;
  let repo: number;
  const old = catalogue(KEV_OLD());
  const now = catalogue(KEV_NEW());
  const oldCves = new Set(old.vulnerabilities.map((x) => x.cveID));
  const newOnly = now.vulnerabilities.map((x) => x.cveID).filter((c) => !oldCves.has(c));
  const BOTH = old.vulnerabilities[0].cveID;
  const NEWLY = newOnly[0];
  const NEWLY_RESOLVED = newOnly[1];
  const NEWLY_LATE = newOnly[2];
  const NONE = 'CVE-2099-0000001';
  const [SCORED, SCORE] = excerptRow(0);
  const [SCORED_LATE, SCORE_LATE] = excerptRow(1);

  const sync = async (feed?: 'kev' | 'epss') => {
    const r = await v.request('POST', `/feeds/sync${feed ? `?feed=${feed}` : ''}`, { token: admin });
    expect(r.status, r.text).to.equal(200);
    return r.body as { outcomes: Array<{ feed: string; outcome: string; reason: string | null; version: string | null; count: number | null; signalled?: number }>; feeds: any[] };
  };
  const issues = async () => {
    const r = await v.request('GET', `/issues?repository_id=${repo}&limit=1000`, { token: admin });
    return new Map<string, { id: number; kev: boolean | null; epss: number | null; status: string }>(r.body.map((i: { identifier: string }) => [i.identifier, i]));
  };
  const feeds = async () => {
    const r = await v.request('GET', '/feeds', { token: admin });
    expect(r.status).to.equal(200);
    return Object.fromEntries(r.body.map((f: { feed: string }) => [f.feed, f]));
  };
  const keyOf = (cve: string, toolKey = 'scanner:vulnerability') => issueKey({ targetKind: 'repository', targetId: repo, toolKey, ruleId: cve, path: '' });

  before(async () => {
    mirror = await new Mirror().start();
    v = await startVigil({ env: { VIGIL_KEV_URL: mirror.url(KEV_PATH), VIGIL_EPSS_URL: mirror.url(EPSS_PATH), ...SWITCHES_ON } });
    admin = await v.signIn();
    repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/feeds/one' } })).body.id;
    await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: BOTH }, { ruleId: NEWLY }, { ruleId: NONE }, { ruleId: SCORED }, { ruleId: 'gitleaks.aws-key', identifier: null, type: 'secret' }]);
    // An issue of another scope, resolved before the newer catalogue lists its CVE.
    await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: NEWLY_RESOLVED }], { toolKey: 'scanner:image' });
    await seedFindings(v, { kind: 'repository', id: repo }, [], { toolKey: 'scanner:image' });
  });
  after(async () => {
    await v?.stop();
    await mirror?.stop();
  });

  it('[S1.1-09] reads kev and epss unknown (null), never false or zero, while no feed was ever synchronised', async () => {
    const all = await issues();
    expect(all.size).to.equal(6);
    for (const issue of all.values()) expect([issue.kev, issue.epss]).to.deep.equal([null, null]);
    const state = await feeds();
    expect(state.kev).to.include({ synchronised: false, version: null, count: null, source: mirror.base, allowPrivate: true, lastRefusal: null });
    expect(state.epss).to.include({ synchronised: false, version: null });
  });

  it('[S1.8.3-49] [S1.1-08] accepts the older KEV snapshot from the mirror: listed issues read kev true, the others false; EPSS stays unknown', async () => {
    mirror.serve(KEV_PATH, { body: KEV_OLD(), headers: { 'content-type': 'application/json' } });
    const r = await sync('kev');
    expect(r.outcomes).to.deep.equal([{ feed: 'kev', outcome: 'accepted', reason: null, version: '2025.01.24', count: 1252, signalled: 1 }]);
    const all = await issues();
    expect(all.get(BOTH)!.kev).to.equal(true);
    expect(all.get(NEWLY)!.kev).to.equal(false);
    expect(all.get(NONE)!.kev).to.equal(false);
    expect(all.get(null as never)!.kev).to.equal(false);
    expect(all.get(NEWLY)!.epss).to.equal(null);
    const state = await feeds();
    expect(state.kev).to.include({ synchronised: true, version: '2025.01.24', releasedAt: '2025-01-24T15:00:57.5282Z', count: 1252 });
    expect(state.kev.synchronisedAt).to.be.a('string');
    expect(Number((await v.database.db.knex('kev_catalogue').count({ n: '*' }).first())!.n)).to.equal(1252);
  });

  it('[S2.6-30] the newer snapshot signals VGL-SEC-002 once for each open issue whose CVE it newly lists', async () => {
    mirror.serve(KEV_PATH, { body: KEV_NEW() });
    const r = await sync('kev');
    expect(r.outcomes[0]).to.include({ outcome: 'accepted', version: '2025.08.25', count: 1404, signalled: 1 });
    const all = await issues();
    expect(all.get(NEWLY)!.kev).to.equal(true);
    expect(all.get(NEWLY_RESOLVED)).to.include({ kev: true, status: 'resolved' });
    const signal = await streamEvents(v, `kev-listed-${keyOf(NEWLY)}`);
    expect(signal).to.have.length(1);
    expect(signal[0].type).to.equal('IssueKevListed');
    expect(signal[0].data).to.deep.include({ id: all.get(NEWLY)!.id, cve: NEWLY, catalogueVersion: '2025.08.25', targetKind: 'repository', targetId: repo });
    expect(signal[0].data.siem).to.deep.include({ signature: 'VGL-SEC-002', severity: 10 });
    // Listed by the first synchronisation already: signalled then, not again.
    expect(await streamEvents(v, `kev-listed-${keyOf(BOTH)}`)).to.have.length(1);
    // Resolved when listed: no signal. Never listed: none.
    expect(await streamEvents(v, `kev-listed-${keyOf(NEWLY_RESOLVED, 'scanner:image')}`)).to.have.length(0);
    expect(await streamEvents(v, `kev-listed-${keyOf(NONE)}`)).to.have.length(0);
    // The catalogue passed as a diff: the 152 new and the changed entries, not the whole list again.
    const summary = (await streamEvents(v, 'feed-kev')).filter((e) => e.type === 'KevCatalogueSynchronised');
    expect(summary.map((e) => e.data.listed)).to.deep.equal([1252, 152]);
    expect(summary[1].data.delisted).to.equal(0);
  });

  it('answers unchanged and writes nothing when the mirror still serves the catalogue in use', async () => {
    const before = await v.eventCount();
    const r = await sync('kev');
    expect(r.outcomes[0]).to.include({ outcome: 'unchanged', version: '2025.08.25' });
    expect(await v.eventCount()).to.equal(before);
  });

  it('[S2.6-30] never signals one issue twice: delisted, then listed again', async () => {
    mirror.serve(KEV_PATH, { body: release('2025.08.26', '2025-08-26T17:00:00.000Z', (c) => c !== NEWLY) });
    expect((await sync('kev')).outcomes[0]).to.include({ outcome: 'accepted', count: 1403, signalled: 0 });
    expect((await issues()).get(NEWLY)!.kev).to.equal(false);
    mirror.serve(KEV_PATH, { body: release('2025.08.27', '2025-08-27T17:00:00.000Z') });
    expect((await sync('kev')).outcomes[0]).to.include({ outcome: 'accepted', count: 1404, signalled: 0 });
    expect((await issues()).get(NEWLY)!.kev).to.equal(true);
    expect(await streamEvents(v, `kev-listed-${keyOf(NEWLY)}`)).to.have.length(1);
  });

  it('[S1.8.3-50] refuses going back to the older snapshot and keeps the catalogue in use', async () => {
    mirror.serve(KEV_PATH, { body: KEV_OLD() });
    const before = await v.eventCount();
    const r = await sync('kev');
    expect(r.outcomes[0]).to.include({ outcome: 'refused', version: '2025.08.27', count: 1404 });
    expect(r.outcomes[0].reason).to.contain('version 2025.01.24, older than 2025.08.27 in use');
    expect(await v.eventCount()).to.equal(before + 1);
    expect((await streamEvents(v, 'feed-kev')).pop()!.type).to.equal('FeedRefused');
    const state = await feeds();
    expect(state.kev).to.include({ version: '2025.08.27', count: 1404 });
    expect(state.kev.lastRefusal.reason).to.contain('older');
    expect((await issues()).get(NEWLY)!.kev).to.equal(true);
    // A newer version released before the one in use is older too.
    mirror.serve(KEV_PATH, { body: release('2025.08.28', '2025-08-20T00:00:00.000Z') });
    expect((await sync('kev')).outcomes[0].reason).to.contain('released 2025-08-20T00:00:00.000Z, before');
  });

  it('[S1.8.3-50] refuses a truncated catalogue (cut connection, cut file) and keeps the one in use', async () => {
    const body = Buffer.from(release('2025.08.29', '2025-08-29T17:00:00.000Z'));
    mirror.serve(KEV_PATH, { body, truncateAt: Math.floor(body.length / 2) });
    const cut = (await sync('kev')).outcomes[0];
    expect(cut.outcome).to.equal('refused');
    expect(cut.reason).to.contain('partial file');
    mirror.serve(KEV_PATH, { body: body.subarray(0, body.length - 200) });
    const short = (await sync('kev')).outcomes[0];
    expect(short.reason).to.contain('not complete JSON');
    expect((await feeds()).kev).to.include({ version: '2025.08.27', count: 1404 });
  });

  it('[S1.8.3-50] refuses a schema-invalid catalogue, a count that does not match, the CSV edition, and one that lost most of its entries', async () => {
    const invalid = catalogue(Buffer.from(release('2025.08.29', '2025-08-29T17:00:00.000Z')));
    invalid.vulnerabilities[5].dateAdded = 'yesterday';
    const miscounted = catalogue(Buffer.from(release('2025.08.29', '2025-08-29T17:00:00.000Z')));
    miscounted.count = 1500;
    const cases: Array<[Buffer | string, string]> = [
      [JSON.stringify(invalid), '/vulnerabilities/5/dateAdded must match format "date"'],
      [JSON.stringify(miscounted), 'declares 1500 vulnerabilities but lists 1404'],
      [KEV_CSV(), 'not complete JSON'],
      [release('2025.08.29', '2025-08-29T17:00:00.000Z', (c) => c < 'CVE-2014'), 'fewer than half the 1404 in use'],
    ];
    for (const [body, reason] of cases) {
      mirror.serve(KEV_PATH, { body });
      const r = (await sync('kev')).outcomes[0];
      expect(r.outcome, reason).to.equal('refused');
      expect(r.reason).to.contain(reason);
    }
    expect((await feeds()).kev).to.include({ version: '2025.08.27', count: 1404 });
    expect(Number((await v.database.db.knex('kev_catalogue').count({ n: '*' }).first())!.n)).to.equal(1404);
  });

  it('[S1.1-08] gives an issue detected later its KEV membership at once, without a signal (no synchronisation listed it)', async () => {
    await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: NEWLY_LATE }], { toolKey: 'scanner:late' });
    expect((await issues()).get(NEWLY_LATE)).to.include({ kev: true, epss: null });
    expect(await streamEvents(v, `kev-listed-${keyOf(NEWLY_LATE, 'scanner:late')}`)).to.have.length(0);
  });

  it('[S1.8.3-51] [S1.1-08] accepts a generated 100,000-row EPSS gzip: issues read their score, the rest stay null', async () => {
    mirror.serve(EPSS_PATH, { body: gz(epssCsv({ rows: 100_000 })) });
    const r = await sync('epss');
    expect(r.outcomes).to.deep.equal([{ feed: 'epss', outcome: 'accepted', reason: null, version: '2026-09-29T12:00:22Z', count: 100_000 }]);
    const all = await issues();
    expect(all.get(SCORED)!.epss).to.equal(SCORE);
    expect(all.get(NONE)!.epss).to.equal(null);
    expect((await feeds()).epss).to.include({ synchronised: true, version: '2026-09-29T12:00:22Z', modelVersion: 'v2026.06.15', count: 100_000 });
    // Detected after the synchronisation: scored at once.
    await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: SCORED_LATE }], { toolKey: 'scanner:later' });
    expect((await issues()).get(SCORED_LATE)!.epss).to.equal(SCORE_LATE);
  });

  it('[S1.8.3-51] refuses 99,999 rows and keeps the scores in use', async () => {
    mirror.serve(EPSS_PATH, { body: gz(epssCsv({ rows: 99_999, scoreDate: '2026-09-30T12:00:00Z' })) });
    const r = (await sync('epss')).outcomes[0];
    expect(r).to.include({ outcome: 'refused', version: '2026-09-29T12:00:22Z', count: 100_000 });
    expect(r.reason).to.contain('holds 99999 scores; at least 100,000');
    expect((await issues()).get(SCORED)!.epss).to.equal(SCORE);
  });

  it('[S1.8.3-52] refuses a file with a score of 1.5', async () => {
    mirror.serve(EPSS_PATH, { body: gz(epssCsv({ rows: 100_000, scoreDate: '2026-09-30T12:00:00Z', edit: (l, i) => (i === 77_777 ? l.replace(/,[^,]+,/, ',1.5,') : l) })) });
    const r = (await sync('epss')).outcomes[0];
    expect(r.outcome).to.equal('refused');
    expect(r.reason).to.contain('the score 1.5, outside [0,1]');
  });

  it('[S1.8.3-53] refuses a gzip bomb inflating past 128 MiB while inflating it', async () => {
    mirror.serve(EPSS_PATH, { body: await gzipBomb(epssCsv({ rows: 100_000, scoreDate: '2026-09-30T12:00:00Z' }), 129 * 1024 * 1024) });
    const r = (await sync('epss')).outcomes[0];
    expect(r.outcome).to.equal('refused');
    expect(r.reason).to.contain('inflates to more than 128 MiB');
    expect((await feeds()).epss).to.include({ version: '2026-09-29T12:00:22Z', count: 100_000 });
  });

  it('[S1.8.3-50] refuses an older score_date or an older model; accepts the plain CSV of a later day and drops the older generation', async () => {
    mirror.serve(EPSS_PATH, { body: gz(epssCsv({ rows: 100_000, scoreDate: '2026-09-28T12:00:00Z' })) });
    expect((await sync('epss')).outcomes[0].reason).to.contain('scores 2026-09-28T12:00:00Z, before 2026-09-29T12:00:22Z');
    mirror.serve(EPSS_PATH, { body: gz(epssCsv({ rows: 100_000, scoreDate: '2026-09-30T12:00:00Z', model: 'v2025.03.14' })) });
    expect((await sync('epss')).outcomes[0].reason).to.contain('model v2025.03.14, older than v2026.06.15');
    mirror.serve(EPSS_PATH, { body: epssCsv({ rows: 100_000, scoreDate: '2026-09-30T12:00:00Z', edit: (l, i) => (i === 0 ? l.replace(/,[^,]+,/, ',0.5,') : l) }) });
    expect((await sync('epss')).outcomes[0]).to.include({ outcome: 'accepted', version: '2026-09-30T12:00:00Z' });
    expect((await issues()).get(SCORED)!.epss).to.equal(0.5);
    const generations = await v.database.db.knex('epss_scores').distinct('generation');
    expect(generations).to.have.length(1);
  });

  it('POST /feeds/sync needs an administrator\'s session; GET /feeds an administrator', async () => {
    const writer = await v.account(['writer']);
    expect((await v.request('POST', '/feeds/sync', { token: writer.token })).status).to.equal(403);
    expect((await v.request('GET', '/feeds', { token: writer.token })).status).to.equal(403);
    const key = await v.key(admin, { name: 'ops', scopes: ['read'] });
    expect((await v.request('POST', '/feeds/sync', { apiKey: key.key })).status).to.equal(403);
    expect((await v.request('GET', '/feeds', { apiKey: key.key })).status).to.equal(200);
    expect((await v.request('POST', '/feeds/sync?feed=nvd', { token: admin })).status).to.equal(400);
  });

  it('rebuilds the enrichment from the event log into identical rows', async () => {
    const snapshot = async () => {
      const k = v.database.db.knex;
      const rows = async (table: string, order: string) => (await k(table).select('*').orderBy(order)).map((r: Record<string, unknown>) => JSON.stringify(r, (_k, x) => (typeof x === 'boolean' ? Number(x) : x)));
      return {
        issues: (await k('issues').select('id', 'kev', 'epss', 'revision').orderBy('id')).map((r: Record<string, unknown>) => `${r.id}:${r.kev === null ? null : Number(r.kev)}:${r.epss}:${r.revision}`),
        kev: await rows('kev_catalogue', 'cve'), state: await rows('feed_state', 'feed'), listed: await rows('kev_listed', 'issue_id'),
      };
    };
    const before = await snapshot();
    await v.services.projections.stop();
    await v.services.projections.rebuild();
    expect(await snapshot()).to.deep.equal(before);
    v.services.projections.start();
  });
});

describe('Enrichment feeds over HTTP: private destinations [S1.8.3-54]', function () {
  requireCorpus(this);
  this.timeout(60_000);
  let mirror: Mirror;
  before(async () => {
    mirror = await new Mirror().start();
    mirror.serve(KEV_PATH, { body: KEV_NEW() }).serve(EPSS_PATH, { body: gz(epssCsv({ rows: 100_000 })) });
  });
  after(async () => { await mirror.stop(); });

  it('[S1.8.3-54] refuses a loopback mirror for both feeds with both switches off (the default), records why, and the loop waits an interval', async () => {
    const clock = new ManualClock(new Date('2026-10-01T00:00:00.000Z'));
    const v = await startVigil({ clock, env: { VIGIL_KEV_URL: mirror.url(KEV_PATH), VIGIL_EPSS_URL: mirror.url(EPSS_PATH) } });
    try {
      const hits = mirror.hits.length;
      const outcomes = await v.services.feeds.runDue(86_400_000);
      expect(outcomes.map((o) => [o.feed, o.outcome])).to.deep.equal([['kev', 'refused'], ['epss', 'refused']]);
      expect(outcomes[0].reason).to.contain('127.0.0.1, a loopback address; set VIGIL_KEV_ALLOW_PRIVATE=true');
      expect(outcomes[1].reason).to.contain('set VIGIL_EPSS_ALLOW_PRIVATE=true');
      expect(mirror.hits.length).to.equal(hits);
      const admin = await v.signIn();
      const state = (await v.request('GET', '/feeds', { token: admin })).body;
      expect(state.map((f: { synchronised: boolean; allowPrivate: boolean }) => [f.synchronised, f.allowPrivate])).to.deep.equal([[false, false], [false, false]]);
      expect(state[0].lastRefusal).to.deep.equal({ reason: outcomes[0].reason, at: '2026-10-01T00:00:00.000Z' });
      // Refused a moment ago: not due again before an interval.
      clock.advance(3_600_000);
      expect(await v.services.feeds.runDue(86_400_000)).to.deep.equal([]);
      clock.advance(86_400_000);
      expect((await v.services.feeds.runDue(86_400_000)).map((o) => o.feed)).to.deep.equal(['kev', 'epss']);
    } finally {
      await v.stop();
    }
  });

  it('[S1.8.3-54] one switch per feed: VIGIL_KEV_ALLOW_PRIVATE opens the KEV mirror and leaves EPSS refused', async () => {
    const v = await startVigil({ env: { VIGIL_KEV_URL: mirror.url(KEV_PATH), VIGIL_EPSS_URL: mirror.url(EPSS_PATH), VIGIL_KEV_ALLOW_PRIVATE: 'true' } });
    try {
      const outcomes = await v.services.feeds.sync(null);
      expect(outcomes.map((o) => [o.feed, o.outcome])).to.deep.equal([['kev', 'accepted'], ['epss', 'refused']]);
      expect(outcomes[1].reason).to.contain('VIGIL_EPSS_ALLOW_PRIVATE');
    } finally {
      await v.stop();
    }
  });
});

describe('Enrichment feeds over HTTP: link-local and metadata destinations stay refused with the switches on (issue #17)', function () {
  requireCorpus(this);
  this.timeout(60_000);

  it('[S1.8.3-54] a loopback mirror redirecting to the metadata address (KEV) or its 6to4 form (EPSS): both refused at that hop, nothing fetched there, the feeds stay unsynchronised', async () => {
    const mirror = await new Mirror().start();
    mirror.serve('/kev-to-metadata', { redirect: 'http://169.254.169.254/latest/meta-data/' }).serve('/epss-to-metadata', { redirect: 'http://[2002:a9fe:a9fe::]/latest/meta-data/' });
    const v = await startVigil({ env: { VIGIL_KEV_URL: mirror.url('/kev-to-metadata'), VIGIL_EPSS_URL: mirror.url('/epss-to-metadata'), ...SWITCHES_ON } });
    try {
      const admin = await v.signIn();
      const r = await v.request('POST', '/feeds/sync', { token: admin });
      expect(r.status, r.text).to.equal(200);
      const [kev, epss] = r.body.outcomes as Array<{ feed: string; outcome: string; reason: string }>;
      expect([kev.feed, kev.outcome, epss.feed, epss.outcome]).to.deep.equal(['kev', 'refused', 'epss', 'refused']);
      expect(kev.reason).to.contain('169.254.169.254, a cloud metadata address (link-local)').and.contain('whatever VIGIL_KEV_ALLOW_PRIVATE says');
      expect(epss.reason).to.contain('the 6to4 form of 169.254.169.254').and.contain('whatever VIGIL_EPSS_ALLOW_PRIVATE says');
      expect([...mirror.hits].sort()).to.deep.equal(['/epss-to-metadata', '/kev-to-metadata']);
      const state = (await v.request('GET', '/feeds', { token: admin })).body;
      expect(state.map((f: { synchronised: boolean; allowPrivate: boolean }) => [f.synchronised, f.allowPrivate])).to.deep.equal([[false, true], [false, true]]);
      expect(state[0].lastRefusal.reason).to.equal(kev.reason);
    } finally {
      await v.stop();
      await mirror.stop();
    }
  });
});

describe('Enrichment feeds: the synchronisation loop', function () {
  requireCorpus(this);
  this.timeout(60_000);

  it('runs at start, and stopping it aborts a download in progress without recording a refusal', async () => {
    const mirror = await new Mirror().start();
    mirror.serve(KEV_PATH, { body: KEV_NEW(), delayMs: 20_000 }).serve(EPSS_PATH, { body: 'never reached' });
    const v = await startVigil({ env: { VIGIL_KEV_URL: mirror.url(KEV_PATH), VIGIL_EPSS_URL: mirror.url(EPSS_PATH), ...SWITCHES_ON } });
    try {
      const events = await v.eventCount();
      v.services.feeds.start(86_400_000);
      for (let i = 0; i < 100 && !mirror.hits.includes(KEV_PATH); i++) await new Promise((r) => setTimeout(r, 20));
      expect(mirror.hits).to.include(KEV_PATH);
      const started = Date.now();
      await v.services.feeds.stop();
      expect(Date.now() - started).to.be.below(5000);
      expect(await v.eventCount()).to.equal(events);
    } finally {
      await v.stop();
      await mirror.stop();
    }
  });
});

describe('Enrichment feeds over HTTP: a catalogue too large for one event', function () {
  requireCorpus(this);
  this.timeout(60_000);

  it('passes the catalogue in parts under 900 KB, delists in parts, and rebuilds the same rows one event per batch', async () => {
    const mirror = await new Mirror().start();
    const v = await startVigil({ env: { VIGIL_KEV_URL: mirror.url(KEV_PATH), VIGIL_EPSS_URL: mirror.url(EPSS_PATH), ...SWITCHES_ON } });
    try {
      const template = catalogue(KEV_NEW()).vulnerabilities[0];
      const big = (version: string, day: string, n: number) => {
        const vulnerabilities = Array.from({ length: n }, (_, i) => ({
          ...template, cveID: `CVE-2030-${String(100_000 + i)}`, product: `Product ${i} ${'p'.repeat(300)}`, vulnerabilityName: `Name ${i} ${'n'.repeat(300)}`,
        }));
        return JSON.stringify({ title: 'CISA Catalog of Known Exploited Vulnerabilities', catalogVersion: version, dateReleased: `${day}T10:00:00.000Z`, count: n, vulnerabilities });
      };
      const admin = await v.signIn();
      const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/feeds/big' } })).body.id;
      await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: 'CVE-2030-100001' }, { ruleId: 'CVE-2030-105999' }]);
      mirror.serve(KEV_PATH, { body: big('2030.01.01', '2030-01-01', 6000) });
      expect((await v.services.feeds.sync(null, ['kev']))[0]).to.include({ outcome: 'accepted', count: 6000, signalled: 2 });
      mirror.serve(KEV_PATH, { body: big('2030.01.02', '2030-01-02', 3000) });
      expect((await v.services.feeds.sync(null, ['kev']))[0]).to.include({ outcome: 'accepted', count: 3000 });
      const k = v.database.db.knex;
      const events: Array<{ type: string; data: string }> = await k('events').where('stream_id', 'feed-kev').orderBy('revision');
      const parts = events.filter((e) => e.type !== 'KevCatalogueSynchronised');
      expect(parts.filter((e) => e.type === 'KevEntriesListed').length).to.be.greaterThan(3);
      expect(parts.filter((e) => e.type === 'KevEntriesDelisted')).to.have.length(1);
      for (const e of events) expect(Buffer.byteLength(e.data)).to.be.below(900 * 1024);
      const summaries = events.filter((e) => e.type === 'KevCatalogueSynchronised').map((e) => JSON.parse(e.data));
      expect(summaries.map((s) => [s.listed, s.delisted])).to.deep.equal([[6000, 0], [0, 3000]]);
      expect(Number((await k('kev_catalogue').count({ n: '*' }).first())!.n)).to.equal(3000);
      const flags = async () => (await k('issues').select('identifier', 'kev').orderBy('identifier')).map((r: { identifier: string; kev: unknown }) => [r.identifier, r.kev === null ? null : Boolean(r.kev)]);
      expect(await flags()).to.deep.equal([['CVE-2030-100001', true], ['CVE-2030-105999', false]]);

      // Every part in its own projection batch: the same rows.
      const before = JSON.stringify([await flags(), await k('kev_catalogue').select('cve').orderBy('cve'), await k('feed_state').select('feed', 'version', 'count', 'stream_revision')]);
      await v.services.projections.stop();
      await new ProjectionRunner(v.database.db, v.services.store as never, allProjections, { batchSize: 1 }).rebuild();
      const after = JSON.stringify([await flags(), await k('kev_catalogue').select('cve').orderBy('cve'), await k('feed_state').select('feed', 'version', 'count', 'stream_revision')]);
      expect(after).to.equal(before);
      v.services.projections.start();
    } finally {
      await v.stop();
      await mirror.stop();
    }
  });
});
