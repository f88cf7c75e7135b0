import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../application/ports/clock';
import { ScanResult } from '../../application/ports/scanning';
import { startVigil } from '../../spec/support/vigil';
import { rate, timed } from './support';

/**
 * npm run bench:scan-ingest — against PostgreSQL (VIGIL_TEST_PG_URL, default the local server):
 *   ingesting one scan's artifacts (an SBOM of 5,000 components, 10,000 vulnerability matches, 500
 *   secret, IaC and SAST findings each) into the backlog through the worker's own completion path,
 *   target < 5 s; then the scheduler deciding a round for 20,000 targets, target < 1 s.
 * The artifacts are the real native formats of Syft, Grype, Gitleaks, Checkov and Semgrep from the
 * corpus (VIGIL_CORPUS_DIR), their entries repeated with distinct identities.
 */
const corpus = path.resolve(process.env.VIGIL_CORPUS_DIR ?? path.join(__dirname, '..', '..', '..', 'shared', 'fixtures'));
const read = (rel: string) => JSON.parse(fs.readFileSync(path.join(corpus, 'scanners', rel), 'utf8'));
const COMPONENTS = 5000;
const MATCHES = 10_000;
const EACH = 500;
const TARGETS = Number(process.env.BENCH_TARGETS ?? 20_000);

function artifacts(): ScanResult {
  const syft = read('syft/syft__cyclonedx-1.6-image.golden.json');
  const component = syft.components[0];
  syft.components = Array.from({ length: COMPONENTS }, (_, i) => ({ ...component, 'bom-ref': `c-${i}`, name: `lib-${i}`, version: `1.${i % 50}.0`, purl: `pkg:npm/lib-${i}@1.${i % 50}.0` }));
  const grype = read('grype/grype-0.28.0__image-all-fields.json');
  const match = grype.matches[0];
  grype.matches = Array.from({ length: MATCHES }, (_, i) => ({
    ...match,
    vulnerability: { ...match.vulnerability, id: `CVE-2024-${10000 + (i % 2000)}` },
    artifact: { ...match.artifact, name: `pkg-${Math.floor(i / 2000)}-${i % 997}`, version: `2.${i % 7}.1`, purl: `pkg:deb/debian/pkg-${Math.floor(i / 2000)}-${i % 997}@2.${i % 7}.1` },
  }));
  const leak = read('gitleaks/gitleaks-8__many.json')[0];
  const gitleaks = Array.from({ length: EACH }, (_, i) => ({ ...leak, File: `config/secret-${i}.env`, RuleID: `rule-${i % 20}`, StartLine: i + 1 }));
  const checkov = read('checkov/checkov__terraform-many.json');
  const check = checkov.results.failed_checks[0];
  checkov.results.failed_checks = Array.from({ length: EACH }, (_, i) => ({ ...check, check_id: `CKV_AWS_${i % 150}`, file_path: `/infra/module-${i}.tf`, repo_file_path: `/infra/module-${i}.tf` }));
  const semgrep = read('semgrep/semgrep__json-dataflow-traces.json');
  const result = semgrep.results[0];
  semgrep.results = Array.from({ length: EACH }, (_, i) => ({ ...result, check_id: `rules.sast-${i % 40}`, path: `src/module-${i}.py` }));
  return {
    artifacts: {
      sbom: { tool: 'syft', toolVersion: '1.0.0', output: syft },
      vulnerabilities: { tool: 'grype', toolVersion: '0.28.0', output: grype },
      secrets: { tool: 'gitleaks', toolVersion: '8.0.0', output: gitleaks },
      iac: { tool: 'checkov', toolVersion: '2.1.0', output: checkov },
      sast: { tool: 'semgrep', toolVersion: '1.0.0', output: semgrep },
    },
    languages: ['python', 'terraform'], languagesBounded: false, duration: 'PT1S',
  };
}

async function main(): Promise<void> {
  const clock = new ManualClock(new Date());
  const v = await startVigil({ engine: 'postgres', clock, overrides: { scanExecutor: null } });
  try {
    const admin = await v.signIn();
    const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/bench/scan-ingest' } })).body.id;
    const result = artifacts();
    const scan = async () => {
      const requested = await v.request('POST', `/repositories/${repo}/scan`, { token: admin, body: {} });
      if (requested.status !== 200) throw new Error(`scan request: ${requested.status} ${requested.text}`);
      const [claim] = await v.services.scanLifecycle.claim({ worker: 'bench', holdsCredentials: true, labels: [] }, 1);
      return timed(() => v.services.scanLifecycle.complete(claim, result));
    };
    const first = await scan();
    const issues = await v.database.db.knex('issues').where({ target_kind: 'repository', target_id: repo, status: 'open' }).count({ n: '*' }).first();
    console.log(`scan ingestion (5,000 components, 10,000 matches, 500 secrets, 500 IaC, 500 SAST): ${(first.ms / 1000).toFixed(2)} s (target < 5 s), outcome ${first.value}, ${issues!.n} open issues`);
    const again = await scan();
    console.log(`the same artifacts again (nothing new): ${(again.ms / 1000).toFixed(2)} s, outcome ${again.value}`);

    // 20,000 targets registered in bulk through the event log, then scheduling rounds.
    const at = clock.now().toISOString();
    const meta = { actor: 1, address: '127.0.0.1', userAgent: 'bench', correlationId: null, at };
    const base = 1_000_000;
    for (let i = 0; i < TARGETS; i += 2000) {
      await v.services.store.appendMany(Array.from({ length: Math.min(2000, TARGETS - i) }, (_, j) => {
        const id = base + i + j;
        return {
          stream: `repository-${id}`, expectedRevision: 'no_stream' as const,
          events: [{ id: randomUUID(), type: 'RepositoryRegistered', metadata: meta, data: {
            id, url: `https://git.example/bench/r${id}`, identity: `git.example/bench/r${id}`, branch: 'main', subPath: '', uniquenessKey: randomUUID().replace(/-/g, ''),
            name: `r${id}`, projectId: null, scanManualOnly: false, scanIntervalMinutes: j % 3 === 0 ? 60 * 24 : null, scanCron: j % 5 === 0 ? '0 3 * * *' : null, registeredAt: at, registeredBy: '1',
          } }],
        };
      }));
    }
    await v.services.projections.waitFor(await v.services.store.head(), ['RepositoryRegistered'], 600_000);
    for (const label of ['first round', 'second round']) {
      const round = await timed(() => v.services.scanScheduler.runOnce());
      console.log(`scheduler ${label} over ${TARGETS + 1} targets: ${(round.ms / 1000).toFixed(2)} s (target < 1 s), due ${round.value.due}, requested ${round.value.requested}`);
    }
    // Eight days later every target is due: the round decides and requests a scan for each.
    clock.advance(8 * 86_400_000);
    const due = await timed(() => v.services.scanScheduler.runOnce());
    console.log(`scheduler round eight days later: ${(due.ms / 1000).toFixed(2)} s, due ${due.value.due}, requested ${due.value.requested} (deciding and requesting every scan)`);
    const busy = await timed(() => v.services.scanScheduler.runOnce());
    console.log(`the next round, every target busy: ${(busy.ms / 1000).toFixed(2)} s, due ${busy.value.due} (${rate(TARGETS, busy.ms)} targets/s)`);
  } finally {
    await v.stop();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
