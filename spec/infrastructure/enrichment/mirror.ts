import * as fs from 'node:fs';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { createGzip, gzipSync } from 'node:zlib';
import { corpusPath } from '../../support/corpus';

/**
 * A feed mirror on loopback (node:http) for the enrichment specs: serves what a test puts at a
 * path, and can misbehave (cut the body short, stall, redirect).
 */
export interface Served {
  body?: Buffer | string;
  status?: number;
  headers?: Record<string, string>;
  /** Send the full Content-Length but only this many bytes, then close the connection. */
  truncateAt?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer 302 to this location. */
  redirect?: string;
  /** Chunked encoding (no Content-Length). */
  chunked?: boolean;
}

export class Mirror {
  private server: http.Server | null = null;
  private readonly routes = new Map<string, Served>();
  readonly hits: string[] = [];
  base = '';

  serve(path: string, served: Served): this {
    this.routes.set(path, served);
    return this;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.answer(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.hits.push(req.url ?? '');
    const served = this.routes.get((req.url ?? '').split('?')[0]);
    if (!served) {
      res.writeHead(404).end();
      return;
    }
    if (served.delayMs) await new Promise((r) => setTimeout(r, served.delayMs));
    if (served.redirect) {
      res.writeHead(302, { location: served.redirect }).end();
      return;
    }
    const body = Buffer.isBuffer(served.body) ? served.body : Buffer.from(served.body ?? '');
    if (served.chunked) {
      res.writeHead(served.status ?? 200, { 'content-type': 'application/octet-stream', ...served.headers });
      for (let i = 0; i < body.length; i += 64 * 1024) {
        if (!res.write(body.subarray(i, i + 64 * 1024))) await new Promise((r) => res.once('drain', r));
        if (res.destroyed) return;
      }
      res.end();
      return;
    }
    res.writeHead(served.status ?? 200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length), ...served.headers });
    if (served.truncateAt !== undefined) {
      res.write(body.subarray(0, served.truncateAt), () => res.destroy());
      return;
    }
    res.end(body);
  }
}

export const KEV_OLD = () => fs.readFileSync(corpusPath('feeds', 'kev', 'known_exploited_vulnerabilities-2025.01.24.json'));
export const KEV_NEW = () => fs.readFileSync(corpusPath('feeds', 'kev', 'known_exploited_vulnerabilities-2025.08.25.json'));
export const KEV_CSV = () => fs.readFileSync(corpusPath('feeds', 'kev', 'known_exploited_vulnerabilities-2025.08.25.csv'));
export const EPSS_EXCERPT = () => fs.readFileSync(corpusPath('feeds', 'epss', 'epss_scores-2026-09-29.excerpt-first-200-rows.csv'), 'utf8');

/**
 * An EPSS file in the format of the real one: its header lines (score_date and model_version
 * replaced when asked), its 200 real rows, then synthetic rows up to `rows` (CVE-2099-nnnnnnn).
 * `edit` changes a row's text (index from 0) before it is written.
 */
export function epssCsv(o: { rows: number; scoreDate?: string; model?: string; edit?: (line: string, index: number) => string; crlf?: boolean }): string {
  const lines = EPSS_EXCERPT().split('\n').filter((l) => l.length > 0);
  let header = lines[0];
  if (o.scoreDate) header = header.replace(/score_date:[^,]+/, `score_date:${o.scoreDate}`);
  if (o.model) header = header.replace(/model_version:[^,]+/, `model_version:${o.model}`);
  const real = lines.slice(2);
  const out: string[] = [header, lines[1]];
  for (let i = 0; i < o.rows; i++) {
    const row = i < real.length ? real[i] : `CVE-2099-${String(1_000_000 + i).padStart(7, '0')},0.0${(i % 9) + 1}${i % 7},0.${(i % 89) + 10}${i % 3}`;
    out.push(o.edit ? o.edit(row, i) : row);
  }
  return out.join(o.crlf ? '\r\n' : '\n') + (o.crlf ? '\r\n' : '\n');
}

export const gz = (text: string | Buffer) => gzipSync(text);

/** Reads the `n`-th real row of the excerpt: [cve, score, percentile]. */
export function excerptRow(n: number): [string, number, number] {
  const [cve, score, percentile] = EPSS_EXCERPT().split('\n')[2 + n].split(',');
  return [cve, Number(score), Number(percentile)];
}

/** `prefix` then newlines until `totalBytes`, gzipped as it is produced (never whole in memory). */
export async function gzipBomb(prefix: string, totalBytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve, reject) => { gzip.on('end', resolve); gzip.on('error', reject); });
  const filler = Buffer.alloc(1024 * 1024, 0x0a);
  const write = (b: Buffer) => (gzip.write(b) ? Promise.resolve() : new Promise((r) => gzip.once('drain', r)));
  await write(Buffer.from(prefix));
  for (let left = totalBytes - Buffer.byteLength(prefix); left > 0; left -= filler.length) await write(left >= filler.length ? filler : filler.subarray(0, left));
  gzip.end();
  await done;
  return Buffer.concat(out);
}
