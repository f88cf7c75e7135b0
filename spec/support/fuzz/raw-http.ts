import * as http from 'node:http';

/** What one request got back, or why nothing came back. */
export interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
  /** Set when no answer came: socket closed, reset, or the time ran out. */
  transportError?: string;
}

/** A header may be sent twice: an array sends one line per value. */
export type RawHeaders = Record<string, string | string[]>;

/**
 * One request through node:http with the path exactly as given: fetch() normalises case-less
 * things such as dot segments and percent-encoding, which the fuzz wants to send as they are.
 * A fresh connection each time (no agent), so one request's fate cannot leak into the next.
 */
export function rawRequest(baseUrl: string, method: string, path: string, headers: RawHeaders, body: Buffer | null, timeoutMs: number): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    let settled = false;
    const done = (a: RawAnswer) => { if (!settled) { settled = true; resolve(a); } };
    let req: http.ClientRequest;
    try {
      req = http.request({
        host: url.hostname, port: Number(url.port), method, path, agent: false,
        headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (e) => done({ status: 0, contentType: '', text: '', transportError: `answer broke off: ${e.message}` }));
      });
    } catch (e) {
      // node:http itself refused to send it (a character it does not put on the wire): a bug of the generator, not of Vigil.
      throw new Error(`the fuzz built a request node:http cannot send (${(e as Error).message}): ${method} ${path.slice(0, 200)}`);
    }
    req.setTimeout(timeoutMs, () => {
      done({ status: 0, contentType: '', text: '', transportError: `no answer within ${timeoutMs} ms` });
      req.destroy();
    });
    req.on('error', (e) => done({ status: 0, contentType: '', text: '', transportError: `connection failed: ${e.message}` }));
    req.end(body ?? undefined);
  });
}
