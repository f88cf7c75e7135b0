import { refuse } from '../shared/decider';

/**
 * Endpoint rules per protocol (spec 2 §4.5, S2.4.5-05, -08, -09): a webhook takes an http(s) URL; a
 * syslog protocol takes host:port (a name or IPv4, IPv6 in brackets, no scheme, port required).
 * A malformed endpoint is refused on save. Pure: addresses are classified where Vigil connects.
 */
export const PROTOCOLS = ['webhook', 'syslog_udp', 'syslog_tcp', 'syslog_tls'] as const;
export type SiemProtocol = (typeof PROTOCOLS)[number];

export const ENDPOINT_MAX = 2048;

export interface SyslogEndpoint { host: string; port: number }

const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9A-Fa-f:.]+$/;

function hostName(host: string): boolean {
  if (host.length > 253) return false;
  const labels = host.replace(/\.$/, '').split('.');
  // All-numeric names that are not a dotted quad (e.g. 1.2.3) are refused: resolvers read them as addresses.
  if (labels.every((l) => /^\d+$/.test(l))) return false;
  return labels.every((l) => LABEL.test(l));
}

/** host:port of a syslog endpoint, or a 400 naming the expected form. */
export function parseSyslogEndpoint(text: string): SyslogEndpoint {
  const form = 'a syslog endpoint is host:port (a name or IPv4 address, an IPv6 address in brackets, no scheme, port 1-65535), e.g. siem.example.com:6514';
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) throw refuse.invalid(`"${text}" has a scheme; ${form}.`);
  const m = /^(\[([^\]]+)\]|[^:[\]]+):(\d{1,5})$/.exec(text);
  if (!m) throw refuse.invalid(`"${text}" is not host:port; ${form}.`);
  const port = Number(m[3]);
  if (port < 1 || port > 65535) throw refuse.invalid(`Port ${m[3]} is out of range; ${form}.`);
  const host = m[2] ?? m[1];
  if (m[2] !== undefined) {
    if (!IPV6.test(host) || !host.includes(':')) throw refuse.invalid(`"${host}" in brackets is not an IPv6 address; ${form}.`);
  } else if (!IPV4.test(host) && !hostName(host)) {
    throw refuse.invalid(`"${host}" is neither a host name nor an IPv4 address; ${form}.`);
  }
  return { host, port };
}

/** An http or https URL without user information (the Authorization header carries credentials). */
export function parseWebhookEndpoint(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse.invalid(`"${text}" is not a URL; a webhook endpoint is an https (or http) URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse.invalid(`A webhook endpoint is an https (or http) URL, not ${url.protocol.replace(/:$/, '')}.`);
  if (url.username || url.password) throw refuse.invalid('A webhook endpoint carries no user name or password; put credentials in authorization.');
  if (url.hash) throw refuse.invalid('A webhook endpoint has no fragment (#...).');
  return url;
}

export function checkEndpoint(protocol: SiemProtocol, endpoint: string): void {
  if (protocol === 'webhook') parseWebhookEndpoint(endpoint);
  else parseSyslogEndpoint(endpoint);
}

/** The host an endpoint connects to (IPv6 without brackets). */
export function endpointHost(protocol: SiemProtocol, endpoint: string): string {
  return protocol === 'webhook' ? parseWebhookEndpoint(endpoint).hostname.replace(/^\[(.*)\]$/, '$1') : parseSyslogEndpoint(endpoint).host;
}
