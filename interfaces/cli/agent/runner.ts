import nacl from 'tweetnacl';
import { credentialBinding } from '../../../domain/agents/attestation';
import { failureReason } from '../../../domain/scans/policy';
import { CloneCredential, ScanExecutor, ScanFailure, ScanJob, ScanTarget } from '../../../application/ports/scanning';
import { openSealed } from '../../../infrastructure/crypto/agent-keys';
import { AGENT_VERSION, ControlPlaneClient, ControlPlaneError } from './client';
import type { AgentSettings } from './settings';

export interface AgentLog {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

interface SealedCredential {
  kind: 'https_token' | 'ssh_key';
  id: number;
  host?: string;
  username?: string;
  knownHosts?: string;
  sealed: string;
}

interface Job {
  id: number;
  attempt: number;
  target: Omit<ScanTarget, 'credential'>;
  credential?: SealedCredential;
}

const MAX_BACKOFF_MS = 5 * 60_000;
const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

/** Defence in depth: whatever the executor says, the secret handed to it never reaches a reason. */
function withoutSecret(reason: string, credential: CloneCredential | undefined): string {
  if (!credential) return reason;
  const secrets = credential.kind === 'https_token'
    ? [credential.token, encodeURIComponent(credential.token), Buffer.from(`${credential.username}:${credential.token}`).toString('base64')]
    : credential.privateKey.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----'));
  return secrets.reduce((text, s) => (s ? text.split(s).join('***') : text), reason);
}

/**
 * vigil-agent's loop (spec 1 §4.7): hello, announce a fresh sealing key (signed) when it has a
 * signing key, then long-poll for jobs while it has free slots (it stops polling when full), run each
 * with the same ScanExecutor as the built-in worker, renew the lease on the executor's heartbeats
 * (at most every VIGIL_AGENT_HEARTBEAT), and report the result or the failure, signed. When the
 * control plane is away it retries with a growing pause (VIGIL_AGENT_RETRY doubled, at most 5
 * minutes). drain() (SIGTERM) stops claiming and waits for the running scans.
 */
export class AgentRunner {
  private readonly client: ControlPlaneClient;
  private readonly signing: nacl.SignKeyPair | null;
  private readonly running = new Map<number, Promise<void>>();
  private readonly stop = new AbortController();
  private sealing: { pair: nacl.BoxKeyPair; createdAt: string } | null = null;
  private maxConcurrent = 1;
  private failures = 0;
  private connected = false;
  private loop: Promise<void> | null = null;

  constructor(private readonly settings: AgentSettings, private readonly executor: ScanExecutor, private readonly log: AgentLog, signing: nacl.SignKeyPair | null) {
    this.signing = signing;
    this.client = new ControlPlaneClient(settings.url, settings.token, signing);
  }

  get runningCount(): number {
    return this.running.size;
  }

  start(): Promise<void> {
    this.loop ??= this.run();
    return this.loop;
  }

  /** SIGTERM: no more claims; the running scans finish and report. */
  async drain(): Promise<void> {
    if (!this.stop.signal.aborted) this.log.info('Stopping: no more claims; waiting for the running scans', { running: this.running.size });
    this.stop.abort();
    await this.loop;
    await Promise.allSettled([...this.running.values()]);
    this.log.info('Stopped');
  }

  private backoff(): number {
    const base = Math.min(MAX_BACKOFF_MS, this.settings.retryMs * 2 ** Math.min(this.failures, 16));
    this.failures++;
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  private async run(): Promise<void> {
    while (!this.stop.signal.aborted) {
      try {
        if (!this.connected) await this.connect();
        if (this.running.size >= this.maxConcurrent) {
          // Full: no poll until a slot frees (S1.4.7-16).
          await Promise.race([...this.running.values(), sleep(this.settings.waitMs || 1000, this.stop.signal)]);
          continue;
        }
        await this.pollOnce();
        this.failures = 0;
      } catch (error) {
        if (this.stop.signal.aborted) break;
        const pause = this.backoff();
        this.log.warn('The control plane is away or refused; retrying', { error: (error as Error)?.message ?? String(error), retryInMs: pause });
        if (error instanceof ControlPlaneError && (error.status === 0 || error.status === 409)) this.connected = false;
        await sleep(pause, this.stop.signal);
      }
    }
  }

  private async connect(): Promise<void> {
    const hello = await this.client.hello({ version: AGENT_VERSION, mode: this.settings.mode, labels: this.settings.labels });
    if (hello.status !== 200) throw new ControlPlaneError(hello.status, `hello answered ${hello.status}: ${hello.body?.detail ?? ''}`);
    this.maxConcurrent = hello.body.maxConcurrent;
    this.connected = true;
    this.log.info('Connected', { agentId: hello.body.agentId, maxConcurrent: this.maxConcurrent, mode: hello.body.mode, credentialState: hello.body.credentialState, attestation: hello.body.attestation });
    // A fresh sealing key at each start (S1.2.7-06).
    if (this.signing) await this.announceSealingKey();
  }

  /** A fresh X25519 pair, stamped and signed; kept in memory only. */
  private async announceSealingKey(): Promise<void> {
    const pair = nacl.box.keyPair();
    const createdAt = new Date().toISOString();
    const a = await this.client.announceSealingKey(pair.publicKey, createdAt);
    if (a.status === 200) {
      this.sealing = { pair, createdAt };
      this.log.info('Sealing key verified', { createdAt, credentialState: a.body.credentialState });
    } else if (a.status === 0 || a.status >= 500) {
      throw new ControlPlaneError(a.status, `the sealing key announcement answered ${a.status}`);
    } else {
      this.log.warn('Sealing key not accepted: credentials withheld', { status: a.status, detail: a.body?.detail });
    }
  }

  private async pollOnce(): Promise<void> {
    const free = this.maxConcurrent - this.running.size;
    const controller = new AbortController();
    const onStop = () => controller.abort();
    this.stop.signal.addEventListener('abort', onStop, { once: true });
    let a;
    try {
      a = await this.client.poll(Math.round(this.settings.waitMs / 1000), free, controller.signal);
    } catch (error) {
      if (this.stop.signal.aborted) return;
      throw error;
    } finally {
      this.stop.signal.removeEventListener('abort', onStop);
    }
    if (a.status === 412) {
      this.log.warn('Only scans needing a credential wait and this agent holds no verified sealing key', { detail: a.body?.detail });
      if (this.signing && this.settings.mode === 'delegated') await this.announceSealingKey();
      await sleep(this.settings.retryMs, this.stop.signal);
      return;
    }
    if (a.status !== 200) throw new ControlPlaneError(a.status, `GET /agent/jobs answered ${a.status}: ${a.body?.detail ?? ''}`);
    if (a.body.maxConcurrent !== this.maxConcurrent) this.log.info('max_concurrent changed', { from: this.maxConcurrent, to: a.body.maxConcurrent });
    this.maxConcurrent = a.body.maxConcurrent;
    // Pinned or replaced meanwhile: announce a newer key at this claim (S1.3.3-08).
    if (this.signing && this.settings.mode === 'delegated' && a.body.signingKeyPinned && !a.body.sealingKeyVerified) await this.announceSealingKey();
    for (const job of a.body.jobs as Job[]) {
      const done = this.runJob(job).catch((error) => this.log.error('A scan could not be reported; its lease will lapse', { scanId: job.id, error: (error as Error)?.message ?? String(error) }))
        .finally(() => this.running.delete(job.id));
      this.running.set(job.id, done);
    }
  }

  /** The credential opened in memory, for this run only (never written, never logged). */
  private unseal(job: Job): CloneCredential | undefined {
    const c = job.credential;
    if (!c) return undefined;
    if (!this.sealing) throw new ScanFailure('transient', 'A sealed credential arrived and this agent holds no sealing key.');
    if (c.kind === 'https_token') {
      const opened = openSealed(c.sealed, this.sealing.pair, credentialBinding(job.id, job.attempt, { kind: 'https_token', host: c.host ?? '', username: c.username ?? '' }));
      if (!opened) throw new ScanFailure('permanent', `credential unusable: credential ${c.id} does not open with this agent's sealing key for ${c.host}.`);
      return { kind: 'https_token', id: c.id, host: c.host!, username: c.username!, token: Buffer.from(opened).toString('utf8') };
    }
    const opened = openSealed(c.sealed, this.sealing.pair, credentialBinding(job.id, job.attempt, { kind: 'ssh_key' }));
    if (!opened) throw new ScanFailure('permanent', `credential unusable: credential ${c.id} does not open with this agent's sealing key.`);
    return { kind: 'ssh_key', id: c.id, privateKey: Buffer.from(opened).toString('utf8'), knownHosts: c.knownHosts ?? '' };
  }

  private async runJob(job: Job): Promise<void> {
    this.log.info('Scan claimed', { scanId: job.id, attempt: job.attempt, target: { kind: job.target.kind, id: job.target.id } });
    const started = Date.now();
    const controller = new AbortController();
    let credential: CloneCredential | undefined;
    let lastRenewal = Date.now();
    const heartbeat = async () => {
      if (Date.now() - lastRenewal < this.settings.heartbeatMs || controller.signal.aborted) return;
      lastRenewal = Date.now();
      const r = await this.client.renew(job.id, job.attempt).catch((e) => ({ status: 0, body: { detail: String(e) } }));
      if (r.status === 409) {
        this.log.warn('The lease was lost; the scan is abandoned', { scanId: job.id, attempt: job.attempt });
        controller.abort(new Error('lease lost'));
      } else if (r.status !== 200) {
        this.log.warn('A lease renewal failed; the next heartbeat tries again', { scanId: job.id, status: r.status });
      }
    };
    try {
      credential = this.unseal(job);
      const scanJob: ScanJob = { scanId: job.id, attempt: job.attempt, target: credential ? { ...job.target, credential } : job.target };
      const result = await this.executor.run(scanJob, heartbeat, controller.signal);
      if (controller.signal.aborted) return;
      await this.deliver(job, () => this.client.result(job.id, job.attempt, { artifacts: result.artifacts, languages: result.languages, languagesBounded: result.languagesBounded, duration: result.duration }), 'result');
      this.log.info('Scan reported', { scanId: job.id, attempt: job.attempt, ms: Date.now() - started });
    } catch (error) {
      if (controller.signal.aborted) return;
      const failure = error instanceof ScanFailure ? error : new ScanFailure('transient', `unclassified: ${(error as Error)?.message ?? String(error)}`);
      // Scrubbed here (S1.4.7-08) and again by the control plane.
      const reason = failureReason(withoutSecret(failure.reason, credential));
      this.log.warn('Scan failed', { scanId: job.id, attempt: job.attempt, kind: failure.kind, reason });
      await this.deliver(job, () => this.client.failure(job.id, job.attempt, reason, failure.kind), 'failure');
    }
  }

  /** A report is retried while the control plane is away; 409 (stale) and 404 (an older control plane's failure route) end it. */
  private async deliver(job: Job, send: () => Promise<{ status: number; body: any }>, what: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let answer: { status: number; body: any };
      try {
        answer = await send();
      } catch (error) {
        answer = { status: 0, body: { detail: (error as Error)?.message } };
      }
      if (answer.status === 200) return;
      if (answer.status === 409 || answer.status === 404 || answer.status === 403 || answer.status === 400 || answer.status === 413) {
        this.log.warn(`The ${what} was not taken`, { scanId: job.id, attempt: job.attempt, status: answer.status, detail: answer.body?.detail });
        return;
      }
      const pause = Math.min(MAX_BACKOFF_MS, this.settings.retryMs * 2 ** Math.min(attempt, 10));
      this.log.warn(`The ${what} could not be delivered; retrying`, { scanId: job.id, status: answer.status, retryInMs: pause });
      await sleep(pause);
    }
  }
}
