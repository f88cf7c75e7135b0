import { NotAsked, Options } from './options';
import { VERSION } from './version';

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  sleep: (ms: number) => Promise<void>;
}

interface Answer { status: number; body: any }

/** Seconds for a person: 1800, 0.2. */
export const secs = (ms: number) => String(Number((ms / 1000).toFixed(1)));

export async function call(o: Options, method: string, path: string, body?: unknown): Promise<Answer> {
  let res: Response;
  const timeout = AbortSignal.timeout(o.requestTimeoutMs);
  try {
    res = await fetch(`${o.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${o.key}`, accept: 'application/json', 'user-agent': `vigil-gate/${VERSION}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: timeout,
    });
  } catch (error) {
    const e = error as Error & { cause?: { code?: string; message?: string } };
    // The time-out is known by its own signal, not by the error's name.
    const why = timeout.aborted ? `no answer within ${secs(o.requestTimeoutMs)} s` : e.cause?.code ?? e.cause?.message ?? e.message;
    throw new NotAsked(`${method} ${o.url}${path} failed: ${why}`);
  }
  const text = await res.text();
  let parsed: unknown = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = text; }
  return { status: res.status, body: parsed };
}

export function refusal(a: Answer, what: string): NotAsked {
  const detail = a.body && typeof a.body === 'object' && typeof a.body.detail === 'string' ? a.body.detail : typeof a.body === 'string' ? a.body.slice(0, 200) : '';
  const hint: Record<number, string> = {
    401: 'the key is missing, unknown, revoked or expired',
    403: 'the key lacks scope scan, or its account may not ask the gate',
    404: 'no such target, or it is outside the key\'s restriction or view',
    429: 'the key spent its request budget; try again later',
  };
  return new NotAsked(`${what} answered ${a.status}${detail ? `: ${detail}` : ''}${hint[a.status] && !detail ? ` (${hint[a.status]})` : ''}`);
}

const PENDING = new Set(['pending', 'scanning', 'running', 'queued']);

/** Polls GET /scans?repo_id= until no scan is pending or running, or the wait ends; never fails the gate on its own. */
export async function waitForScan(o: Options, io: Io): Promise<void> {
  const id = o.body.repositoryId;
  if (id === undefined) {
    io.out('--wait-for-scan: GET /scans lists scans by repository id; with this target there is nothing to wait on (use --repository-id).');
    return;
  }
  const deadline = Date.now() + o.waitTimeoutMs;
  for (let announced = false; ;) {
    const a = await call(o, 'GET', `/scans?repo_id=${id}&limit=20`);
    if (a.status === 404) { io.out('--wait-for-scan: this Vigil lists no scans (GET /scans answered 404); nothing to wait for.'); return; }
    if (a.status === 403) { io.out('--wait-for-scan: the key may not list scans (it needs scope read as well); not waiting.'); return; }
    if (a.status !== 200) throw refusal(a, 'GET /scans');
    const scans: unknown[] = Array.isArray(a.body) ? a.body : [];
    const waiting = scans.filter((s) => {
      const x = s as { status?: unknown; scan?: { status?: unknown } };
      return PENDING.has(String(x.status ?? x.scan?.status ?? ''));
    }).length;
    if (waiting === 0) {
      if (announced) io.out('--wait-for-scan: no scan pending or running any more.');
      return;
    }
    if (Date.now() + o.pollIntervalMs > deadline) {
      io.out(`--wait-for-scan: ${waiting} scan(s) still pending or running after ${secs(o.waitTimeoutMs)} s; asking the gate anyway.`);
      return;
    }
    if (!announced) io.out(`--wait-for-scan: ${waiting} scan(s) pending or running on ${o.targetLabel}; polling every ${secs(o.pollIntervalMs)} s for up to ${secs(o.waitTimeoutMs)} s.`);
    announced = true;
    await io.sleep(o.pollIntervalMs);
  }
}
