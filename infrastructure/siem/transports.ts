import * as dgram from 'node:dgram';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import { parseSyslogEndpoint, parseWebhookEndpoint, SiemProtocol } from '../../domain/siem/endpoint';
import { formatSyslog, octetCounted } from '../../domain/siem/syslog';
import type { Destination, OutgoingMessage, SiemTransport } from '../../application/siem/ports';
import { checkHost, guardedLookup, resolveChecked } from './destination-guard';

/**
 * Sends CEF lines to the configured collector (spec 2 §4.5): a JSON POST `{"cef": line}` per event
 * to a webhook (redirects refused: any 3xx is a failure, nothing follows it); RFC 5424 over UDP
 * (one datagram per event, no delivery guarantee), TCP or TLS 1.2/1.3 with hostname verification
 * and the configured CA (octet-counted frames on one connection per batch). Every connection goes
 * through the destination guard.
 */
export interface TransportOptions {
  hostname: string;
  timeoutMs: number;
}

export class NodeSiemTransport implements SiemTransport {
  constructor(private readonly options: TransportOptions) {}

  async send(destination: Destination, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    switch (destination.protocol) {
      case 'webhook':
        for (const m of messages) await this.post(destination, m.cef);
        return;
      case 'syslog_udp':
        return this.udp(destination, messages);
      case 'syslog_tcp':
      case 'syslog_tls':
        return this.stream(destination, messages);
      default: {
        const never: never = destination.protocol;
        throw new Error(`unknown protocol ${String(never)}`);
      }
    }
  }

  private line(m: OutgoingMessage): string {
    return formatSyslog({ severity: m.severity, at: m.at, hostname: this.options.hostname, signature: m.signature, cef: m.cef });
  }

  private post(d: Destination, cef: string): Promise<void> {
    const url = parseWebhookEndpoint(d.endpoint);
    checkHost(url.hostname.replace(/^\[(.*)\]$/, '$1'), d.allowPrivate);
    const body = Buffer.from(JSON.stringify({ cef }), 'utf8');
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', 'content-length': body.length, 'user-agent': 'Vigil-SIEM' };
    if (d.authorization) headers.authorization = d.authorization;
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<void>((resolve, reject) => {
      const req = client.request(url, { method: 'POST', headers, lookup: guardedLookup(d.allowPrivate), timeout: this.options.timeoutMs, minVersion: 'TLSv1.2' } as https.RequestOptions, (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) res.on('end', () => resolve());
        else if (status >= 300 && status < 400) reject(new Error(`The webhook answered ${status} (a redirect); redirects are refused.`));
        else reject(new Error(`The webhook answered ${status}.`));
      });
      req.on('timeout', () => req.destroy(new Error(`No answer from the webhook within ${this.options.timeoutMs} ms.`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  private async udp(d: Destination, messages: readonly OutgoingMessage[]): Promise<void> {
    const { host, port } = parseSyslogEndpoint(d.endpoint);
    const target = await resolveChecked(host, d.allowPrivate);
    const socket = dgram.createSocket(target.family === 6 ? 'udp6' : 'udp4');
    return new Promise<void>((resolve, reject) => {
      socket.on('error', (e) => { socket.close(); reject(e); });
      let i = 0;
      const next = (): void => {
        if (i === messages.length) { socket.close(); resolve(); return; }
        socket.send(Buffer.from(this.line(messages[i++]), 'utf8'), port, target.address, (e) => (e ? (socket.close(), reject(e)) : next()));
      };
      next();
    });
  }

  private stream(d: Destination, messages: readonly OutgoingMessage[]): Promise<void> {
    const { host, port } = parseSyslogEndpoint(d.endpoint);
    checkHost(host, d.allowPrivate);
    const lookup = guardedLookup(d.allowPrivate);
    return new Promise<void>((resolve, reject) => {
      const onConnect = (): void => {
        // One write of every frame: the collector reads them back by their octet counts.
        socket.end(Buffer.concat(messages.map((m) => octetCounted(this.line(m)))));
      };
      const socket: net.Socket = d.protocol === 'syslog_tls'
        ? tls.connect({
          host, port, lookup, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3', servername: ipaddr.isValid(host) ? undefined : host,
          ca: d.tlsCaPem ?? undefined, rejectUnauthorized: true,
        }, onConnect)
        : net.connect({ host, port, lookup }, onConnect);
      socket.setTimeout(this.options.timeoutMs, () => socket.destroy(new Error(`No progress on ${d.endpoint} within ${this.options.timeoutMs} ms.`)));
      socket.on('error', reject);
      // 'close' after our end and the peer's: every byte was handed to the kernel and acknowledged by the peer's FIN.
      socket.on('close', (hadError) => { if (!hadError) resolve(); });
      socket.resume();
    });
  }
}

export type { SiemProtocol };
