import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../../application/ports/clock';
import { seedFindings } from '../../../support/backlog';
import { Answer, RunningVigil, startVigil } from '../../../support/vigil';

export const T0 = '2026-02-01T09:00:00.000Z';

/** A Vigil with a project of two repositories whose issues stand in every situation of the VEX table. */
export interface ExportWorld {
  v: RunningVigil;
  clock: ManualClock;
  admin: string;
  projectId: number;
  solutionId: number;
  repo: number;
  other: number;
  /** Issue ids by situation. */
  issues: Record<string, number>;
}

/** The situations reachable through the API, with the vulnerability and component each issue names. */
export const SITUATIONS: Array<{ name: string; cve: string; purl: string }> = [
  { name: 'under_review', cve: 'CVE-2024-0001', purl: 'pkg:npm/left-pad@1.0.0' },
  { name: 'affected', cve: 'CVE-2024-0002', purl: 'pkg:npm/lodash@4.17.20' },
  { name: 'pending_approval', cve: 'CVE-2024-0003', purl: 'pkg:npm/minimist@1.2.0' },
  { name: 'not_affected_with_justification', cve: 'CVE-2024-0004', purl: 'pkg:maven/org.example/core@2.0.0' },
  { name: 'not_affected_without_justification', cve: 'CVE-2024-0005', purl: 'pkg:pypi/requests@2.0.0' },
  { name: 'will_not_fix', cve: 'CVE-2024-0006', purl: 'pkg:npm/express@4.0.0' },
  { name: 'fixed', cve: 'CVE-2024-0007', purl: 'pkg:npm/qs@6.0.0' },
  { name: 'resolved', cve: 'GHSA-jf85-cpcp-j695', purl: 'pkg:npm/axios@0.21.0' },
];

export async function buildWorld(env: Record<string, string> = {}): Promise<ExportWorld> {
  const clock = new ManualClock(new Date(T0));
  const v = await startVigil({ clock, env: { ENCRYPTION_KEY: randomBytes(32).toString('base64'), VIGIL_VEX_AUTHOR: 'Example PSIRT', VIGIL_PUBLIC_URL: 'https://vigil.example.org/', ...env } });
  const admin = await v.signIn();
  const solutionId = (await v.request('POST', '/solutions', { token: admin, body: { name: 'Shop' } })).body.id;
  const projectId = (await v.request('POST', '/projects', { token: admin, body: { name: 'Checkout', solutionId } })).body.id;
  const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/shop/checkout', projectId } })).body.id;
  const other = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/shop/cart', projectId } })).body.id;
  const world: ExportWorld = { v, clock, admin, projectId, solutionId, repo, other, issues: {} };
  for (const s of SITUATIONS) {
    await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: s.cve, identifier: s.cve, path: s.purl, packageName: s.purl.split('/').pop()!.split('@')[0], packageVersion: s.purl.split('@')[1] }], { toolKey: `scanner:vex-${s.name}` });
  }
  await seedFindings(v, { kind: 'repository', id: other }, [{ ruleId: 'CVE-2024-0002', identifier: 'CVE-2024-0002', path: 'pkg:npm/lodash@4.17.20' }], { toolKey: 'scanner:vex-other' });
  const list = (await v.request('GET', `/issues?repository_id=${repo}&limit=1000`, { token: admin })).body as Array<{ id: number; ruleId: string }>;
  for (const s of SITUATIONS) world.issues[s.name] = list.find((i) => i.ruleId === s.cve)!.id;
  clock.advance(60_000);
  const triage = async (name: string, body: unknown) => expect((await v.request('POST', `/issues/${world.issues[name]}/triage`, { token: admin, body })).status, name).to.equal(200);
  await triage('affected', { status: 'affected' });
  await triage('not_affected_with_justification', { status: 'not_affected', justification: 'code_not_reachable' });
  await triage('not_affected_without_justification', { status: 'not_affected' });
  await triage('will_not_fix', { status: 'will_not_fix', expires_in_days: 30 });
  await triage('fixed', { status: 'fixed' });
  await v.request('PATCH', '/settings', { token: admin, body: { triage_four_eyes: true } });
  await triage('pending_approval', { status: 'not_affected', justification: 'code_not_present' });
  await v.request('PATCH', '/settings', { token: admin, body: { triage_four_eyes: false } });
  await seedFindings(v, { kind: 'repository', id: repo }, [], { toolKey: 'scanner:vex-resolved' });
  clock.advance(60_000);
  return world;
}

const dir = mkdtempSync(join(tmpdir(), 'vigil-exports-'));

/** Checks an export's detached signature with the real openssl binary against the served public key. */
export async function verifyWithOpenssl(v: RunningVigil, answer: Answer, bytes: Buffer): Promise<string> {
  const name = randomBytes(4).toString('hex');
  const pub = join(dir, `${name}.pub.pem`);
  const sig = join(dir, `${name}.sig.der`);
  const doc = join(dir, `${name}.doc`);
  writeFileSync(pub, (await v.request('GET', '/crypto/public-key.pub')).text);
  writeFileSync(sig, Buffer.from(answer.headers.get('vigil-signature')!, 'base64'));
  writeFileSync(doc, bytes);
  return execFileSync('openssl', ['dgst', '-sha256', '-verify', pub, '-signature', sig, doc], { encoding: 'utf8' }).trim();
}

/** An export's raw bytes (fetch, not the harness's text decoding) with its answer. */
export async function fetchBytes(v: RunningVigil, path: string, token: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(`${v.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}
