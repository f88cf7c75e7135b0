import { MAX_WAIT_SECONDS } from '../../../application/agents/agent-service';
import { expect } from 'chai';
import fc from 'fast-check';
import Mocha from 'mocha';
import winston from 'winston';
import { compose } from '../../../interfaces/composition/root';
import { allRoutes } from '../../../interfaces/http/routes';
import { RouteDef } from '../../../interfaces/http/route';
import { RouteTable } from '../../../interfaces/http/route-table';
import { runMigrations } from '../../../migrations';
import { requireCorpus } from '../../support/corpus';
import { TestEngine } from '../../support/databases';
import { Broken, brokenRule, Caller, describeAnswer, OperationReport, runOperation, Secrets, send } from '../../support/fuzz/fuzz-runner';
import { Operation, operationsOf, serverBase } from '../../support/fuzz/operations';
import { pathVariants } from '../../support/fuzz/path-variants';
import { rawRequest } from '../../support/fuzz/raw-http';
import { failureCount, health, ReadModelWatch } from '../../support/fuzz/read-models';
import { Facet, requestsFor } from '../../support/fuzz/requests';
import { Seeded, seedState } from '../../support/fuzz/seed-state';
import { ServerLog } from '../../support/fuzz/server-log';
import { ADMIN, RunningVigil, startVigil } from '../../support/vigil';

/**
 * The fuzz of issue #17: every operation of the OpenAPI document, over real HTTP, with requests
 * generated from its schemas with hostile leaves (see spec/support/fuzz/). Deterministic: a fixed
 * seed (VIGIL_FUZZ_SEED) and a fixed number of runs per operation (VIGIL_FUZZ_RUNS); a time budget
 * (VIGIL_FUZZ_BUDGET, seconds) stops sending when the server has become slow, so the suite stays
 * bounded even when a read model wedges and every command waits for it. VIGIL_FUZZ_ENGINE=postgres
 * runs it over PostgreSQL; VIGIL_FUZZ_ONLY=<regular expression> keeps the operations whose "METHOD /path" it matches.
 */
const SEED = Number(process.env.VIGIL_FUZZ_SEED ?? 1717);
const RUNS = Number(process.env.VIGIL_FUZZ_RUNS ?? 40);
const BUDGET_MS = Number(process.env.VIGIL_FUZZ_BUDGET ?? 75) * 1000;
const ENGINE = (process.env.VIGIL_FUZZ_ENGINE ?? 'pglite') as TestEngine;
const ONLY = process.env.VIGIL_FUZZ_ONLY ?? '';
/** Operations that hold their answer by design, and for how long at most: GET /agent/jobs?wait=N holds up to 30 s whatever N (S1.4.7-02). */
const LONG_POLLS: Record<string, number> = { 'GET /agent/jobs': MAX_WAIT_SECONDS * 1000 };

const ENV = {
  VIGIL_API_DOCS_ENABLED: 'true',
  VIGIL_TRUSTED_PROXIES: '127.0.0.1',
  // The fuzz sends thousands of requests with the one key and many refused bearers from one address.
  VIGIL_API_KEY_REQUESTS_PER_MINUTE: '1000000',
  VIGIL_BEARER_FAILURES_PER_WINDOW: '1000000',
  // A stopped read model makes every command wait this long; the default 10 s would spend the budget in a few requests.
  VIGIL_READ_YOUR_WRITES_TIMEOUT: '2s',
  ENCRYPTION_KEY: Buffer.alloc(32, 17).toString('base64'),
  VIGIL_EMBEDDED_WORKER: 'false',
  // Private addresses the feed guard refuses: POST /feeds/sync never leaves the machine.
  VIGIL_KEV_URL: 'http://127.0.0.1:9/kev.json',
  VIGIL_EPSS_URL: 'http://127.0.0.1:9/epss.csv',
  VIGIL_FEED_INTERVAL: '0s',
};

/** The properties of each operation, and the share of the runs (and of the time) each gets. */
const FACETS: Array<{ name: Facet; runs: number }> = [{ name: 'input', runs: 1 }, { name: 'headers', runs: 0.4 }, { name: 'credentials', runs: 0.2 }];
const FACET_WEIGHT = FACETS.reduce((n, f) => n + f.runs, 0);

/** FNV-1a: a per-operation seed from the base seed, so that adding an operation changes no other's requests. */
function seedOf(id: string): number {
  let h = 0x811c9dc5;
  for (const c of id) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return (h ^ SEED) | 0;
}

/** The operation's own caller, from its access rule: the one that opens most code paths. */
function callerOf(op: Operation, route: RouteDef | undefined): Caller {
  if (op.path.endsWith('/sign-out')) return 'fresh-session';
  const auth = route?.auth;
  if (!auth || auth === 'public') return 'none';
  if (auth.handlerDecides || auth.keyOnly) return 'key';
  if (auth.roles && !auth.roles.includes('administrator') && auth.roles.includes('platform_governor')) return 'governor';
  return 'admin';
}

/** Writes first, removals after them, and the operation that ends a session last: each leaves the seeded state to the next. */
function ordered(ops: Operation[]): Operation[] {
  const rank = (op: Operation) => (op.path.endsWith('/sign-out') ? 2 : op.method === 'delete' ? 1 : 0);
  return ops.map((op, i) => ({ op, i })).sort((a, b) => rank(a.op) - rank(b.op) || a.i - b.i).map((x) => x.op);
}

describe('Fuzz: every operation of the OpenAPI document, over HTTP', function () {
  this.timeout(BUDGET_MS + 120_000);
  requireCorpus(this);
  let v: RunningVigil;
  let w: RunningVigil | undefined;
  let seeded: Seeded;
  let secrets: Secrets;
  let watch: ReadModelWatch;
  let ops: Operation[];
  let base: string;
  let routes: RouteDef[];
  let perOperation: Mocha.Suite;
  let serverLog: ServerLog;
  const reports: OperationReport[] = [];

  /** A 5xx is logged with its cause and answered without it: the report quotes the log. */
  const withLoggedCause = (rule: string | null, mark: number) => {
    const logged = rule ? serverLog.since(mark).filter((l) => !l.startsWith('Projection ')) : [];
    return rule && logged.length ? `${rule} (server log: ${logged[0]})` : rule;
  };

  const fill = (op: Operation) => op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const segments = op.path.split('/');
    const literal = segments.slice(0, segments.findIndex((s) => s.includes(`{${name}}`))).reverse().find((s) => !s.includes('{')) ?? '';
    return seeded.pathValues(literal, name)[0] ?? '1';
  });

  before(async function () {
    // eslint-disable-next-line no-console
    console.log(`  [fuzz] seed ${SEED} (VIGIL_FUZZ_SEED), ${RUNS} runs per operation (VIGIL_FUZZ_RUNS), budget ${BUDGET_MS / 1000} s (VIGIL_FUZZ_BUDGET), engine ${ENGINE} (VIGIL_FUZZ_ENGINE)`);
    v = await startVigil({ engine: ENGINE, env: ENV });
    seeded = await seedState(v, ADMIN.password);
    const doc = await v.request('GET', '/v3/api-docs', { token: seeded.admin.token });
    expect(doc.status, doc.text).to.equal(200);
    base = serverBase(doc.body);
    ops = ordered(operationsOf(doc.body));
    routes = allRoutes(v.services);
    secrets = {
      admin: seeded.admin.token, governor: seeded.governor.token, key: seeded.key.key,
      adminBasic: Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64'),
      // Fuzzed password resets may name the administrator's account: put the password back then.
      freshSession: async () => {
        try {
          return await v.signIn();
        } catch {
          await v.services.identity.resetPassword({ actor: null, now: new Date() }, seeded.admin.id, ADMIN.password);
          return v.signIn();
        }
      },
    };
    serverLog = new ServerLog(v.services.log);
    // The runner logs "Projection <names> failed" with the error; a projection stepped alone logs its own name.
    const causeOf = (name: string) => serverLog.latest(`Projection ${name} failed`);
    watch = new ReadModelWatch(v.url, async () => Number((await v.database.db.knex('events').max({ p: 'position' }).first())?.p ?? 0), causeOf);
    await watch.baseline();
    const fuzzStart = { at: 0 };
    const selected = ops.filter((op) => new RegExp(ONLY).test(op.id));
    selected.forEach((op, index) => {
      const route = routes.find((r) => r.method === op.method && r.path === op.path);
      const caller = callerOf(op, route);
      const test = new Mocha.Test(`${op.id} (as ${caller}): no 5xx, every 4xx a problem document with a detail, its events taken by the read models`, async () => {
        if (!fuzzStart.at) fuzzStart.at = Date.now();
        // This operation's share of what is left of the budget; a facet done early leaves its time to the next.
        const opStart = Date.now();
        const share = Math.max(0, (fuzzStart.at + BUDGET_MS - opStart) / (selected.length - index));
        const failures: string[] = [];
        let weight = 0;
        for (const facet of FACETS) {
          const numRuns = Math.ceil(RUNS * facet.runs);
          weight += facet.runs;
          const deadline = opStart + share * weight / FACET_WEIGHT;
          const report = await runOperation(`${op.id} [${facet.name}]`, requestsFor(op, base, seeded.hints, seeded.pathValues, facet.name), { seed: seedOf(`${op.id} ${facet.name}`), numRuns, deadline }, async (r) => {
            const mark = serverLog.mark();
            const answer = await send(v.url, r, caller, secrets, LONG_POLLS[op.id] ?? 0);
            const stoppedBefore = watch.stoppedProjections;
            const rule = withLoggedCause(brokenRule(answer), mark);
            const models = await watch.afterRequest();
            // A read model stopped earlier makes commands wait for it and read rows that are not there: say so beside a 5xx.
            const context = rule && stoppedBefore.length ? ` (read models stopped earlier in the run: ${stoppedBefore.join(', ')}; this answer may follow from that)` : '';
            if (rule || models) throw new Broken([rule && rule + context, models].filter(Boolean).join('; and '), r, answer, !!models);
          });
          reports.push(report);
          if (report.failed) failures.push(report.message);
        }
        const alive = await health(v.url);
        expect(alive.status, `after ${op.id} the server no longer answers GET /health`).to.be.oneOf([200, 503]);
        if (failures.length) throw new Error(failures.join('\n\n'));
      });
      test.timeout(BUDGET_MS + 60_000);
      perOperation.addTest(test);
    });
  });

  after(async function () {
    const failed = reports.filter((r) => r.failed);
    const sent = reports.reduce((n, r) => n + r.sent, 0);
    const skipped = reports.reduce((n, r) => n + r.skippedForTime, 0);
    // eslint-disable-next-line no-console
    console.log(`  [fuzz] ${reports.length} properties, ${sent} requests sent, ${skipped} runs skipped for time; ${failed.length} failed${failed.length ? `:\n    ${failed.map((r) => r.message.split('\n')[0]).join('\n    ')}` : ''}`);
    if (w) await w.stop();
    else if (v) await v.stop({ keepDatabase: true }).catch(() => undefined).then(() => v.database.drop());
  });

  it('derives one operation per route from GET /v3/api-docs, with its parameters and body', () => {
    expect(ops.map((o) => o.id).sort()).to.deep.equal(routes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort());
    for (const op of ops) {
      const route = routes.find((r) => r.method === op.method && r.path === op.path)!;
      expect(!!op.body || !!op.uploadTypes, `${op.id} body`).to.equal(!!route.body || !!route.rawBody);
      expect(op.pathParams.map((p) => p.name), `${op.id} path parameters`).to.deep.equal([...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]));
      expect(op.secured, `${op.id} security`).to.equal(route.auth !== 'public');
    }
  });

  /** Spellings of declared paths sent with no credential: exact routing answers 404 before any handler or rule. */
  const routing = (title: string, pick: (op: Operation) => boolean) => it(title, async () => {
    const table = new RouteTable(routes);
    const arb = pathVariants(ops.filter(pick), base, fill);
    const details = await fc.check(fc.asyncProperty(arb, async (p) => {
      // A spelling that is plainly another declared path (/repositories/Duplicates is /repositories/{id})
      // is that route, under its own rule: not a way around one.
      if (table.resolve(p.op.method.toUpperCase(), p.variant).kind !== 'none') return;
      const body = ['post', 'put', 'patch'].includes(p.op.method) ? Buffer.from('{}') : null;
      const mark = serverLog.mark();
      const answer = await rawRequest(v.url, p.op.method.toUpperCase(), p.variant, body ? { 'content-type': 'application/json' } : {}, body, 15_000);
      const rule = withLoggedCause(answer.status !== 404 ? `answered ${answer.status}, not 404` : brokenRule(answer), mark);
      if (rule) throw new Error(`${rule}: ${describeAnswer(answer)}`);
    }), { seed: seedOf(title), numRuns: RUNS * 5 });
    if (details.failed) {
      const message = `${String(details.counterexample?.[0])}: ${(details.errorInstance as Error).message}\n  seed ${details.seed}, path "${details.counterexamplePath}", shrunk ${details.numShrinks} time(s)`;
      reports.push({ operation: 'routing', failed: true, message: `routing: ${message}`, sent: details.numRuns, skippedForTime: 0 });
      throw new Error(message);
    }
  });
  routing('answers 404, never 2xx, 401 or 403, to other spellings of a route that needs a credential (case, slashes, percent-encoding, dot segments), sent with none', (op) => op.secured);
  routing('answers 404 to other spellings of a public route', (op) => !op.secured);

  describe('each operation', function () {
    perOperation = this;
  });

  describe('afterwards', function () {
    it('GET /health answers 200 with every projection caught up and none failed', async () => {
      let h = await health(v.url);
      for (let i = 0; i < 50 && (h.body?.projections ?? []).some((p) => p.lagEvents > 0); i++) {
        await new Promise((r) => setTimeout(r, 100));
        h = await health(v.url);
      }
      expect(h.status, JSON.stringify(h.body)).to.equal(200);
      const projections = h.body!.projections!;
      const behind = projections.filter((p) => p.lagEvents > 0).map((p) => `${p.name} ${p.lagEvents} events behind`);
      expect(behind, `stopped read models; runner error: ${v.services.projections.error?.message}`).to.deep.equal([]);
      if (projections.some((p) => 'failures' in p)) {
        expect(projections.filter((p) => failureCount(p) > 0).map((p) => `${p.name}: ${JSON.stringify(p.failures)}`)).to.deep.equal([]);
      } else {
        expect(v.services.projections.error?.message ?? null, 'the projection runner recorded an error').to.equal(null);
      }
    });

    it('a new Vigil over the same database starts and reports the same health', async () => {
      const before = await health(v.url);
      await v.stop({ keepDatabase: true });
      w = await startVigil({ engine: ENGINE, env: ENV, database: v.database });
      const after = await health(w.url);
      expect(after.status).to.equal(200);
      const positions = (h: typeof before) => (h.body?.projections ?? []).map((p) => ({ name: p.name, position: p.position, lagEvents: p.lagEvents }));
      expect(positions(after)).to.deep.equal(positions(before));
    });

    it('a projection rebuild, as npm run projections:rebuild does it, completes with every projection caught up', async () => {
      expect(w, 'the second Vigil did not start').to.not.equal(undefined);
      // What interfaces/cli/rebuild-projections.ts does, over the running instance's database.
      const logger = winston.createLogger({ level: 'error', transports: [new winston.transports.Console()] });
      const cli = compose(w!.config, { database: w!.database.db, logger });
      await runMigrations(cli.db.knex, cli.db.engine);
      await cli.projections.rebuild(cli.projections.projections);
      const status = await cli.projections.status();
      expect(status.filter((s) => s.lagEvents > 0)).to.deep.equal([]);
      expect((await health(w!.url)).status).to.equal(200);
    });
  });
});
