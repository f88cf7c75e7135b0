import { createVerify, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { FileByteSpools } from '../../infrastructure/exports/byte-spool';
import { ManualClock } from '../../application/ports/clock';
import { signDocument } from '../../application/exports/signed-document';
import type { ExportFormat } from '../../application/exports/export-service';
import { seedFindings } from '../../spec/support/backlog';
import { startVigil } from '../../spec/support/vigil';
import { timed } from './support';

/**
 * npm run bench:exports — against PostgreSQL (VIGIL_TEST_PG_URL / 127.0.0.1:5432, user postgres):
 * a project of BENCH_ISSUES (50,000) open vulnerability issues on BENCH_COMPONENTS (2,000) components
 * of one repository, put in through the one ingestion path; then each VEX format and the SBOM asked over
 * HTTP (the body hashed and its signature verified as it arrives, nothing kept), printing the time, the
 * growth of live memory (heap + external) and of the process's RSS during the request (sampled every
 * 10 ms; Vigil runs in this process; run with NODE_OPTIONS=--expose-gc so each export starts collected), the signing overhead (the document written and
 * signed against written and hashed alone, in process) and the ratio to a floor: reading the same
 * issue rows and serialising them with JSON.stringify. The issue's figures: under 5 s, under 300 MB, under 5 %.
 * Prints figures, asserts nothing.
 */
const ISSUES = Number(process.env.BENCH_ISSUES ?? 50_000);
const COMPONENTS = Number(process.env.BENCH_COMPONENTS ?? 2_000);
const FORMATS: ExportFormat[] = ['cyclonedx-vex', 'openvex', 'csaf-vex', 'cyclonedx-sbom', 'sarif'];
const MB = 1024 * 1024;

async function main(): Promise<void> {
  const clock = new ManualClock(new Date('2026-03-01T00:00:00.000Z'));
  const v = await startVigil({ engine: 'postgres', clock, env: { ENCRYPTION_KEY: randomBytes(32).toString('base64'), VIGIL_PUBLIC_URL: 'https://vigil.example.org' }, overrides: { scanExecutor: null } });
  try {
    const admin = await v.signIn();
    const projectId = (await v.request('POST', '/projects', { token: admin, body: { name: 'bench' } })).body.id;
    const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/bench/exports', projectId } })).body.id;
    const findings = Array.from({ length: ISSUES }, (_, i) => {
      const c = i % COMPONENTS;
      const cve = `CVE-2024-${String(10_000 + Math.floor(i / COMPONENTS))}`;
      return { ruleId: cve, identifier: cve, path: `pkg:npm/component-${c}@1.${c % 10}.0`, packageName: `component-${c}`, packageVersion: `1.${c % 10}.0`, title: `Flaw ${cve} in component-${c}`, severity: (['critical', 'high', 'medium', 'low'] as const)[i % 4] };
    });
    const seeded = await timed(() => seedFindings(v, { kind: 'repository', id: repo }, findings));
    console.log(`seeded ${ISSUES.toLocaleString('en-US')} issues on ${COMPONENTS.toLocaleString('en-US')} components in ${(seeded.ms / 1000).toFixed(1)} s (${seeded.value.created} created)`);
    clock.advance(60_000);
    // Warm the key, the statement cache and the JIT once.
    await fetchRetried(`${v.url}/api/v1/repositories/${repo}/exports/openvex`, admin).then((r) => r.arrayBuffer());

    // The floor: the same rows read and serialised with JSON.stringify.
    const floor = await timed(async () => {
      const rows = await v.database.db.knex('issues').where({ target_kind: 'repository', target_id: repo })
        .select('id', 'target_kind', 'target_id', 'type', 'tool_name', 'rule_id', 'path', 'line', 'severity', 'title', 'identifier', 'package_name', 'package_version', 'fixable', 'status', 'triage_status', 'justification', 'review_date', 'first_seen_at');
      return JSON.stringify(rows).length;
    });
    console.log(`floor (read ${ISSUES.toLocaleString('en-US')} rows + JSON.stringify, ${(floor.value / MB).toFixed(1)} MB): ${(floor.ms / 1000).toFixed(2)} s`);

    const principal = await v.services.identity.authenticate(admin);
    if (process.env.BENCH_BREAKDOWN) {
      const data = await timed(() => v.services.exports.data(principal as never, 'repository', repo, null));
      const doc = await v.services.exports.document(principal as never, 'repository', repo, 'cyclonedx-vex', null);
      const write = await timed(async () => { let n = 0; for (const p of doc.pieces) n += p.length; return n; });
      console.log(`breakdown: read ${(data.ms / 1000).toFixed(2)} s, document (statements and writing) ${(write.ms / 1000).toFixed(2)} s`);
    }
    // BENCH_SPOOL_IN_MEMORY=1 keeps every document in memory between signing and sending (the design before the
    // spool, ADR 0016): the same code with an unbounded memory limit, for a before/after comparison.
    if (process.env.BENCH_SPOOL_IN_MEMORY) (v.services as { exportSpools: unknown }).exportSpools = new FileByteSpools(tmpdir(), Number.POSITIVE_INFINITY);
    const live = () => { const m = process.memoryUsage(); return m.heapUsed + m.external; };
    const baseline = process.memoryUsage().rss;
    const pem = (await (await fetch(`${v.url}/api/v1/crypto/public-key.pub`)).text());
    for (const format of FORMATS) {
      global.gc?.();
      const before = process.memoryUsage().rss;
      const liveBefore = live();
      const buffersBefore = process.memoryUsage().arrayBuffers;
      let peak = before;
      let livePeak = liveBefore;
      let buffersPeak = buffersBefore;
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        peak = Math.max(peak, m.rss);
        livePeak = Math.max(livePeak, m.heapUsed + m.external);
        buffersPeak = Math.max(buffersPeak, m.arrayBuffers);
      }, 10);
      // The client (in this process too) keeps nothing: it hashes and verifies the body as it arrives.
      const answer = await timed(async () => {
        const res = await fetchRetried(`${v.url}/api/v1/repositories/${repo}/exports/${format}`, admin);
        if (res.status !== 200) throw new Error(`${format}: ${res.status} ${(await res.text()).slice(0, 300)}`);
        const verify = createVerify('sha256');
        let size = 0;
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) { size += chunk.length; verify.update(chunk); }
        const verified = verify.verify(pem, Buffer.from(res.headers.get('vigil-signature')!, 'base64'));
        return { size, verified };
      });
      clearInterval(sampler);
      // Signing overhead: the ECDSA pass over the document's bytes (what signing adds to writing and
      // hashing them), timed alone on the bytes of one export, against the whole export's time.
      const key = await v.services.platformKeys.current();
      const signed = await signDocument(await v.services.exports.document(principal as never, 'repository', repo, format, null), key, v.services.exportSpools.create());
      const spilled = signed.spool.spilled;
      const chunks: Buffer[] = [];
      for await (const c of signed.spool.read()) chunks.push(c);
      await signed.spool.dispose();
      const signing = await timed(async () => { const signer = key.signer(); for (const c of chunks) signer.update(c); return signer.sign().length; });
      chunks.length = 0;
      console.log(`${format.padEnd(15)} ${(answer.value.size / MB).toFixed(1).padStart(6)} MB in ${(answer.ms / 1000).toFixed(2)} s over HTTP (target < 5 s), signature ${answer.value.verified ? 'verified' : 'NOT VERIFIED'} over the streamed bytes, spooled to ${spilled ? 'a file' : 'memory'}; `
        + `live heap+external +${((livePeak - liveBefore) / MB).toFixed(0)} MB at peak (of which Buffers +${((buffersPeak - buffersBefore) / MB).toFixed(1)} MB), RSS +${((peak - before) / MB).toFixed(0)} MB during it, +${((peak - baseline) / MB).toFixed(0)} MB over the process before the first export (target < 300 MB); `
        + `signing ${signing.ms.toFixed(0)} ms = ${((signing.ms / answer.ms) * 100).toFixed(1)} % of it (target < 5 %), ${(answer.ms / floor.ms).toFixed(1)}x the floor`);
    }
    if (process.env.BENCH_AS_OF) {
      // as_of folds every issue stream of the scope from the log (one stream read each): not one of the issue's figures, measured for the record.
      const asOf = encodeURIComponent(clock.now().toISOString());
      const folded = await timed(async () => {
        const res = await fetch(`${v.url}/api/v1/repositories/${repo}/exports/cyclonedx-vex?as_of=${asOf}`, { headers: { authorization: `Bearer ${admin}` } });
        return (await res.arrayBuffer()).byteLength;
      });
      console.log(`cyclonedx-vex with as_of (folded from ${ISSUES.toLocaleString('en-US')} issue streams): ${(folded.value / MB).toFixed(1)} MB in ${(folded.ms / 1000).toFixed(2)} s`);
    }
  } finally {
    await v.stop();
  }
}

/** A GET that tries once more when the server closed a kept-alive connection as it was reused (ECONNRESET under load). */
async function fetchRetried(url: string, token: string): Promise<Response> {
  try {
    return await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  } catch {
    return fetch(url, { headers: { authorization: `Bearer ${token}` } });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
