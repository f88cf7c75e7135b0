/**
 * The interface's only way to the server: /api/v1 with the session's bearer token, as any other
 * client calls it. Problems (application/problem+json) become ApiError with the server's detail,
 * shown as written; a 401 ends the session in the page.
 */
import { session } from './session';

export interface Problem { status: number; title: string; detail: string; type?: string; [key: string]: unknown }

export class ApiError extends Error {
  constructor(readonly problem: Problem) { super(problem.detail || problem.title); }
  get status(): number { return this.problem.status; }
  /** The conflict type after urn:vigil:problem: (issue-changed-meanwhile, ...). */
  get kind(): string | undefined { return this.problem.type?.replace(/^urn:vigil:problem:/, ''); }
}

export interface Answer<T> { status: number; body: T; etag: string | null; next: Record<string, string> | null }

export type Query = Record<string, string | number | boolean | undefined | null>;

export function queryString(query: Query = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The query of Link rel="next" (the API pages with limit and after or before). */
export function nextOf(link: string | null): Record<string, string> | null {
  const m = link && /<([^>]+)>\s*;\s*rel="next"/.exec(link);
  if (!m) return null;
  return Object.fromEntries(new URL(m[1], location.origin).searchParams.entries());
}

/** `cookies`: send this origin's cookies (only the sign-on handoff reads one; every other call is the bearer token's alone). */
export async function call<T = any>(method: string, path: string, options: { body?: unknown; query?: Query; ifMatch?: string | null; raw?: BodyInit; contentType?: string; cookies?: boolean } = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = session.token();
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  let body: BodyInit | undefined;
  if (options.raw !== undefined) { body = options.raw; headers['content-type'] = options.contentType ?? 'application/octet-stream'; }
  else if (options.body !== undefined || method !== 'GET' && method !== 'DELETE') {
    // A command without fields still sends a JSON body: the API reads every body as JSON (an empty one is refused with 415).
    body = JSON.stringify(options.body ?? {}); headers['content-type'] = 'application/json';
  }
  let res: Response;
  const signal = session.signal();
  try {
    res = await fetch(`/api/v1${path}${queryString(options.query)}`, { method, headers, body, credentials: options.cookies ? 'same-origin' : 'omit', cache: 'no-store', signal });
  } catch {
    if (signal.aborted) throw new ApiError({ status: 0, title: 'Cancelled', detail: 'The session this call belonged to was left.' });
    throw new ApiError({ status: 0, title: 'No answer', detail: 'The server did not answer; check the connection and try again.' });
  }
  const text = await res.text();
  let parsed: any = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = text; }
  if (!res.ok) {
    if (res.status === 401 && token && path !== '/auth/sign-in') session.expire(token);
    const problem: Problem = typeof parsed === 'object' && parsed ? parsed : { status: res.status, title: res.statusText, detail: String(parsed ?? res.statusText) };
    throw new ApiError({ ...problem, status: res.status });
  }
  return { status: res.status, body: parsed as T, etag: res.headers.get('etag'), next: nextOf(res.headers.get('link')) };
}

/**
 * Signing out: the page forgets the session first (session.signedOut), then tells the server with
 * the token it held. `keepalive` lets the request outlive the page, should the person reload or
 * leave at once; whatever the answer, the page has already let go.
 */
export function signOut(): void {
  const token = session.token();
  session.signedOut();
  if (!token) return;
  fetch('/api/v1/auth/sign-out', {
    method: 'POST', keepalive: true, credentials: 'omit', cache: 'no-store', body: '{}',
    headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${token}` },
  }).catch(() => { /* no answer: the session still ends when it is idle */ });
}

export const get = <T = any>(path: string, query?: Query) => call<T>('GET', path, { query });

export interface Downloaded { filename: string; size: number; sha256: string | null; signature: string | null; asOf: string | null }

/**
 * GET a document with the session's token and hand it to the browser as a file (an object URL
 * clicked with `download`): a plain link could not carry the bearer token.
 */
export async function download(path: string, query?: Query): Promise<Downloaded> {
  const headers: Record<string, string> = {};
  const token = session.token();
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`/api/v1${path}${queryString(query)}`, { headers, credentials: 'omit', cache: 'no-store', signal: session.signal() });
  if (!res.ok) {
    if (res.status === 401 && token) session.expire(token);
    const text = await res.text();
    let problem: Problem;
    try { problem = JSON.parse(text); } catch { problem = { status: res.status, title: res.statusText, detail: text || res.statusText }; }
    throw new ApiError({ ...problem, status: res.status });
  }
  const blob = await res.blob();
  const filename = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? path.split('/').pop() ?? 'export';
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url; a.download = filename; a.hidden = true;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return { filename, size: blob.size, sha256: res.headers.get('vigil-document-sha256'), signature: res.headers.get('vigil-signature'), asOf: res.headers.get('vigil-as-of') };
}

export interface UploadProgress { loaded: number; total: number | null; sent: boolean }

/**
 * POSTs a report to one of the public import routes with an integration key (X-API-Key), as a
 * pipeline would: the session's token is not sent (an import is the key's act: the key names the
 * source), nor any cookie. XMLHttpRequest rather than fetch, because only it reports the upload's
 * progress. A 401 here is the key's, not the session's, so the session is left as it is.
 */
export function upload<T = any>(path: string, file: Blob, o: { apiKey: string; contentType: string; query?: Query; onProgress: (p: UploadProgress) => void }): Promise<Answer<T>> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const signal = session.signal();
    const gone = () => xhr.abort();
    signal.addEventListener('abort', gone, { once: true });
    xhr.open('POST', `/api/v1${path}${queryString(o.query)}`);
    xhr.withCredentials = false;
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('content-type', o.contentType);
    xhr.setRequestHeader('x-api-key', o.apiKey);
    xhr.upload.onprogress = (e) => o.onProgress({ loaded: e.loaded, total: e.lengthComputable ? e.total : null, sent: false });
    xhr.upload.onload = () => o.onProgress({ loaded: file.size, total: file.size, sent: true });
    xhr.onerror = () => { signal.removeEventListener('abort', gone); reject(new ApiError({ status: 0, title: 'No answer', detail: 'The server did not answer; check the connection and try again.' })); };
    xhr.onabort = () => { signal.removeEventListener('abort', gone); reject(new ApiError({ status: 0, title: 'Cancelled', detail: 'The session this upload belonged to was left.' })); };
    xhr.onload = () => {
      signal.removeEventListener('abort', gone);
      let parsed: any = null;
      try { parsed = xhr.responseText ? JSON.parse(xhr.responseText) : null; } catch { parsed = xhr.responseText; }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve({ status: xhr.status, body: parsed as T, etag: xhr.getResponseHeader('etag'), next: nextOf(xhr.getResponseHeader('link')) });
        return;
      }
      const problem: Problem = typeof parsed === 'object' && parsed ? parsed : { status: xhr.status, title: xhr.statusText, detail: String(parsed || xhr.statusText) };
      reject(new ApiError({ ...problem, status: xhr.status }));
    };
    xhr.send(file);
  });
}
