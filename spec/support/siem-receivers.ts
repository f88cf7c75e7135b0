import { execFileSync } from 'node:child_process';
import * as dgram from 'node:dgram';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';

/**
 * Collectors on loopback for the SIEM specs, written here: what arrived, byte for byte. TCP and TLS
 * keep the raw stream (octet-counted frames are read back by their counts); UDP keeps datagrams;
 * the webhook keeps each request's headers and body.
 */
export interface Received { frames: string[]; raw: Buffer[]; close(): Promise<void>; port: number; endpoint: string }

/** Splits an RFC 6587 octet-counted stream into its messages (throws on a malformed count). */
export function octetFrames(stream: Buffer): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < stream.length) {
    const space = stream.indexOf(0x20, i);
    const count = Number(stream.subarray(i, space).toString('ascii'));
    if (space < 0 || !Number.isInteger(count) || count <= 0) throw new Error(`not octet-counted at byte ${i}: ${stream.subarray(i, i + 20).toString()}`);
    out.push(stream.subarray(space + 1, space + 1 + count).toString('utf8'));
    i = space + 1 + count;
  }
  return out;
}

export async function tcpReceiver(options: { tls?: { key: string; cert: string } } = {}): Promise<Received> {
  const raw: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const onSocket = (socket: net.Socket) => {
    sockets.add(socket);
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => { raw.push(Buffer.concat(chunks)); socket.end(); });
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server = options.tls ? tls.createServer({ key: options.tls.key, cert: options.tls.cert, minVersion: 'TLSv1.2' }, onSocket) : net.createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    raw, port, endpoint: `127.0.0.1:${port}`,
    get frames() { return raw.flatMap(octetFrames); },
    close: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

export async function udpReceiver(): Promise<Received> {
  const raw: Buffer[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (m) => raw.push(m));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = socket.address().port;
  return {
    raw, port, endpoint: `127.0.0.1:${port}`,
    get frames() { return raw.map((b) => b.toString('utf8')); },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/**
 * `hold`: a stalled collector: requests are read but neither taken (not in `requests`) nor answered
 * while it is set; `held` counts them.
 */
export interface WebhookReceiver { requests: Array<{ headers: http.IncomingHttpHeaders; body: string }>; url: string; status: number; redirect: string | null; hold: boolean; held: number; close(): Promise<void> }

export async function webhookReceiver(options: { tls?: { key: string; cert: string } } = {}): Promise<WebhookReceiver> {
  const state: WebhookReceiver = { requests: [], url: '', status: 200, redirect: null, hold: false, held: 0, close: async () => undefined };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (state.hold) {
        state.held += 1;
        return;
      }
      state.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (state.redirect) res.writeHead(307, { location: state.redirect }).end();
      else res.writeHead(state.status).end();
    });
  };
  const server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  state.url = `${options.tls ? 'https' : 'http'}://${options.tls ? 'localhost' : '127.0.0.1'}:${port}/siem`;
  state.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return state;
}

/** A test CA and a server certificate for localhost and 127.0.0.1 signed by it, made with openssl. */
export function testCertificates(): { dir: string; caPem: string; key: string; cert: string; caFile: string; keyFile: string; certFile: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-siem-ca-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Vigil test CA');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  fs.writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf');
  const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
  return { dir, caPem: read('ca.pem'), key: read('server.key'), cert: read('server.pem'), caFile: path.join(dir, 'ca.pem'), keyFile: path.join(dir, 'server.key'), certFile: path.join(dir, 'server.pem') };
}

export async function until<T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
