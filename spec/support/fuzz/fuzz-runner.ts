import fc from 'fast-check';
import { abbreviate } from './encoding';
import { RawAnswer, RawHeaders, rawRequest } from './raw-http';
import { FuzzRequest } from './requests';

/** Who an operation's own caller is (from its access rule). */
export type Caller = 'admin' | 'governor' | 'key' | 'none' | 'fresh-session';

export interface Secrets {
  admin: string;
  governor: string;
  key: string;
  adminBasic: string;
  /** A new administrator session, for an operation that ends the one it is called with. */
  freshSession(): Promise<string>;
}

/**
 * One property broken by one request. `conclusive`: the request changed the server for good (a
 * projection stopped on its events), so no later request can fail the same way for the same
 * reason; shrinking would only find requests failing because of it. The run reports this one.
 */
export class Broken extends Error {
  constructor(readonly rule: string, readonly request: FuzzRequest, readonly answer: RawAnswer, readonly conclusive = false) {
    super(rule);
  }
}

export const REQUEST_TIMEOUT_MS = 15_000;

/** The headers that carry a request's credential, resolved only when it is sent. */
export async function credentialHeaders(r: FuzzRequest, caller: Caller, s: Secrets): Promise<RawHeaders> {
  const own = caller === 'fresh-session' ? `Bearer ${await s.freshSession()}` : caller === 'governor' ? `Bearer ${s.governor}` : `Bearer ${s.admin}`;
  const ownHeaders = (): RawHeaders => (caller === 'none' ? {} : caller === 'key' ? { 'x-api-key': s.key } : { authorization: own });
  const secret = caller === 'key' ? s.key : own.slice('Bearer '.length);
  switch (r.credential) {
    case 'caller': return ownHeaders();
    case 'admin-session': return { authorization: `Bearer ${s.admin}` };
    case 'key': return { 'x-api-key': s.key };
    case 'none': return {};
    case 'junk-bearer': return { authorization: `Bearer ${r.junkCredential}` };
    case 'lowercase-scheme': return { authorization: `bearer ${secret}` };
    case 'padded-bearer': return { authorization: `Bearer \t ${secret}  ` };
    case 'basic': return { authorization: `Basic ${s.adminBasic}` };
    case 'scheme-only': return { authorization: 'Bearer' };
    case 'junk-bearer+valid-key': return { authorization: `Bearer ${r.junkCredential}`, 'x-api-key': s.key };
    case 'duplicate-authorization': return { authorization: [`Bearer ${r.junkCredential}`, `Bearer ${secret}`] };
    case 'duplicate-key': return { 'x-api-key': [s.key, s.key] };
    case 'long-token': return { authorization: `Bearer ${'A'.repeat(4_000)}` };
  }
}

export async function send(url: string, r: FuzzRequest, caller: Caller, s: Secrets, holdsMs = 0): Promise<RawAnswer> {
  const headers = { ...r.headers, ...(await credentialHeaders(r, caller, s)) };
  // A long poll legitimately holds its answer (holdsMs): "no answer" counts only past that.
  return rawRequest(url, r.method, r.target, headers, r.body, REQUEST_TIMEOUT_MS + holdsMs);
}

/**
 * The properties every answer keeps: an answer comes; never a 5xx; a 4xx is
 * application/problem+json with a detail for a person. Answers the broken one, or null.
 */
export function brokenRule(a: RawAnswer): string | null {
  if (a.transportError) return `no answer: ${a.transportError}`;
  if (a.status >= 500) return `answered ${a.status}`;
  if (a.status >= 400) {
    if (!/^application\/problem\+json/i.test(a.contentType)) return `answered ${a.status} as "${a.contentType}", not application/problem+json`;
    let detail: unknown;
    try { detail = (JSON.parse(a.text) as { detail?: unknown }).detail; } catch { return `answered ${a.status} with a problem document that is not JSON`; }
    if (typeof detail !== 'string' || detail.trim() === '') return `answered ${a.status} with a problem document without a detail`;
  }
  return null;
}

export function describeAnswer(a: RawAnswer): string {
  if (a.transportError) return a.transportError;
  return `${a.status} ${a.contentType || '(no content type)'} ${abbreviate(a.text, 500)}`;
}

export interface OperationReport {
  operation: string;
  failed: boolean;
  /** What went wrong, shrunk, as a person reads it. */
  message: string;
  sent: number;
  skippedForTime: number;
}

/**
 * Runs one operation's property: numRuns requests from the seed, each checked by `check`.
 * Past the deadline a run sends nothing and passes, so that a slow server (a read model
 * wedged, every command waiting for it) bounds the time instead of the suite's timeout;
 * shrinking stops the same way and reports the smallest failing request found by then.
 */
export async function runOperation(
  operation: string, arb: fc.Arbitrary<FuzzRequest>, options: { seed: number; numRuns: number; deadline: number },
  check: (r: FuzzRequest) => Promise<void>,
): Promise<OperationReport> {
  let sent = 0;
  let skippedForTime = 0;
  let concluded = false;
  const details = await fc.check(fc.asyncProperty(arb, async (r) => {
    if (concluded) return;
    if (Date.now() >= options.deadline) { skippedForTime++; return; }
    sent++;
    try {
      await check(r);
    } catch (e) {
      if (e instanceof Broken && e.conclusive) concluded = true;
      throw e;
    }
  }), { seed: options.seed, numRuns: options.numRuns });
  if (!details.failed) return { operation, failed: false, message: '', sent, skippedForTime };
  const error = details.errorInstance;
  const request = details.counterexample?.[0];
  const lines = [`${operation}: ${error instanceof Error ? error.message : String(error)}`];
  const shrunk = concluded ? 'not shrunk (it stopped a read model: no later request can repeat it)' : `shrunk ${details.numShrinks} time(s)`;
  lines.push(`  found after ${details.numRuns} run(s), ${shrunk}; fast-check seed ${details.seed}, path "${details.counterexamplePath}"`);
  if (request) lines.push('  request:', ...request.describe().split('\n').map((l) => `    ${l}`));
  if (error instanceof Broken) lines.push(`  answer: ${describeAnswer(error.answer)}`);
  else if (error instanceof Error && error.stack) lines.push(`  ${error.stack.split('\n').slice(1, 4).join('\n  ')}`);
  return { operation, failed: true, message: lines.join('\n'), sent, skippedForTime };
}
