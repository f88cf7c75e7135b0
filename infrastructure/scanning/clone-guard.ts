import { promises as dns } from 'node:dns';
import * as net from 'node:net';
import ipaddr from 'ipaddr.js';
import { cloneTransport } from '../../domain/targets/clone-endpoint';
import { describeAddress, METADATA_HOSTS, readAddress } from '../network/address-classes';

/**
 * The clone guard (spec 1 §8.3 VIGIL_GIT_ALLOWED_HOSTS): which clone URLs Vigil may fetch.
 *
 * - Only network URLs: https://, http://, ssh:// (also git+ssh://, ssh+git://), git://, and the
 *   scp form `user@host:path`. file://, ext::, local paths and anything else are refused: they would
 *   read the scanning host's own files or run commands.
 * - VIGIL_GIT_ALLOWED_HOSTS set: the host must match one entry (`git.example.com` exactly, or
 *   `*.example.com` for any name below example.com, at any depth, not example.com itself; IP
 *   literals match exactly). Empty: every host.
 * - Always, list or not: cloud-metadata names (metadata.google.internal, metadata.goog,
 *   instance-data.ec2.internal, ...) are refused, and the host is resolved (every address,
 *   `dns.promises.lookup(host, { all: true })`) and refused when one address is link-local
 *   (169.254.0.0/16, fe80::/10), a metadata address (169.254.169.254, fd00:ec2::254,
 *   100.100.100.200, 168.63.129.16, 192.0.0.192, ...) or reserved (unspecified, multicast,
 *   broadcast, 192.0.0.0/24 IETF protocol assignments, documentation and benchmarking ranges...),
 *   as infrastructure/network/address-classes.ts classifies them (the feeds use it too): IPv6
 *   forms carrying an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are judged by that
 *   address. Private and loopback addresses are allowed. A listed host that resolves to a refused
 *   address is refused too (DNS rebinding).
 *
 * A refusal is permanent (spec 1 §3.1 "URL refused by the clone guard"). A name that does not
 * resolve is a network failure, transient. The scan-time clone pins http(s) connections to the
 * addresses checked here (git's http.curloptResolve) and does not follow redirects; ssh:// and
 * git:// connect by name again, so a DNS answer changing between check and connect is a residual
 * risk for those two.
 *
 * Checked on entry (spec 1 §8.3): the targets context asks it, through the CloneUrlCheck port,
 * when a repository is registered or its URL changes (a name that does not resolve then is let
 * through: the check before each clone decides). The executor calls it before each clone.
 */
export type Lookup = (host: string) => Promise<string[]>;

export interface CloneUrl {
  scheme: 'https' | 'http' | 'ssh' | 'git';
  /** Lower case, IPv6 without brackets. */
  host: string;
  port: number | null;
  /** The URL with any password or token replaced, for messages. */
  display: string;
}

export type GuardVerdict =
  | { allowed: true; url: CloneUrl; addresses: string[] }
  | { allowed: false; permanent: boolean; reason: string };

export class CloneUrlRefused extends Error {}

const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

function validHostName(host: string): boolean {
  return host.length <= 253 && host.split('.').every((label) => HOST_LABEL.test(label.replace(/_/g, 'a')));
}

/** Replaces a password or token in a URL's user part. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^@/]*)@/i, (_, scheme: string, user: string) => `${scheme}${user.includes(':') ? `${user.split(':')[0]}:***` : user}@`);
}

export function parseCloneUrl(raw: string): CloneUrl {
  const url = raw.trim();
  // eslint-disable-next-line no-control-regex
  if (!url || /[\s\u0000-\u001f\u007f]/.test(url)) throw new CloneUrlRefused('The clone URL is empty or contains spaces or control characters.');
  const display = redactUrl(url);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    // The scheme table repositories are checked with on entry (domain/targets/clone-endpoint.ts).
    const kind = cloneTransport(url);
    if (kind === 'file') throw new CloneUrlRefused(`The clone URL ${display} uses "${scheme}://"; only https, http, ssh and git URLs can be cloned.`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new CloneUrlRefused(`The clone URL ${display} is not a valid URL.`);
    }
    const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (!host) throw new CloneUrlRefused(`The clone URL ${display} names no host.`);
    if (!net.isIP(host) && !validHostName(host)) throw new CloneUrlRefused(`The clone URL ${display} names an invalid host "${host}".`);
    return { scheme: kind, host, port: parsed.port ? Number(parsed.port) : null, display };
  }
  if (/^[a-z][a-z0-9+.-]*::/i.test(url)) throw new CloneUrlRefused(`The clone URL ${display} names a git remote helper; only https, http, ssh and git URLs can be cloned.`);
  // scp form: [user@]host:path, with no "/" before the first ":" (git's own rule).
  const scp = /^(?:[^@/:]+@)?(\[[0-9a-f:.]+\]|[^:/[\]]+):(?!\/\/)(.+)$/i.exec(url);
  if (scp && !/^[a-z]:[\\/]/i.test(url)) {
    const host = scp[1].replace(/^\[|\]$/g, '').toLowerCase();
    if (!net.isIP(host) && !validHostName(host)) throw new CloneUrlRefused(`The clone URL ${display} names an invalid host "${host}".`);
    return { scheme: 'ssh', host, port: null, display };
  }
  throw new CloneUrlRefused(`The clone URL ${display} is not a network URL; only https, http, ssh and git URLs can be cloned.`);
}

/** VIGIL_GIT_ALLOWED_HOSTS as a list of lower-case patterns; throws a message naming a bad entry. */
export function parseAllowedHosts(text: string): string[] {
  const patterns = text.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const pattern of patterns) {
    const name = pattern.replace(/^\[|\]$/g, '');
    const bare = name.startsWith('*.') ? name.slice(2) : name;
    if (net.isIP(name)) continue;
    if (!bare || bare.includes('*') || !validHostName(bare)) {
      throw new Error(`"${pattern}" is not a host name; write names such as git.example.com or *.example.com, separated by commas.`);
    }
  }
  return patterns.map((p) => p.replace(/^\[|\]$/g, ''));
}

export function hostMatches(host: string, pattern: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  const p = pattern.toLowerCase();
  if (p.startsWith('*.')) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
  if (net.isIP(p) && net.isIP(h)) return ipaddr.parse(p).toNormalizedString() === ipaddr.parse(h).toNormalizedString();
  return h === p;
}

/**
 * Why an address may not be cloned from, or null. S1.8.3-32: with no allowed-host list every host is
 * allowed except link-local and metadata addresses (IPv6 forms carrying one included); other
 * reserved ranges (documentation, benchmarking, ...) are left to the allowed-host list, since
 * installations use them in labs and examples.
 */
export function refusedAddress(address: string): string | null {
  const reading = readAddress(address);
  if (!reading) return `"${address}" is not an address`;
  return reading.metadata || reading.class === 'link-local' ? `${address} is ${describeAddress(reading)}` : null;
}

const systemLookup: Lookup = async (host) => (await dns.lookup(host, { all: true })).map((a) => a.address);

export interface CloneGuardOptions {
  /** Patterns from VIGIL_GIT_ALLOWED_HOSTS (parseAllowedHosts); empty allows every host. */
  allowedHosts: readonly string[];
  /** Resolver (default: the system's, as git will use); tests give their own. */
  lookup?: Lookup;
}

export class CloneGuard {
  private readonly lookup: Lookup;

  constructor(private readonly options: CloneGuardOptions) {
    this.lookup = options.lookup ?? systemLookup;
  }

  async check(rawUrl: string): Promise<GuardVerdict> {
    let url: CloneUrl;
    try {
      url = parseCloneUrl(rawUrl);
    } catch (error) {
      if (error instanceof CloneUrlRefused) return { allowed: false, permanent: true, reason: error.message };
      throw error;
    }
    const refuse = (why: string): GuardVerdict => ({ allowed: false, permanent: true, reason: `The clone guard refuses ${url.display}: ${why}.` });
    const host = url.host.replace(/\.$/, '');
    if (METADATA_HOSTS.includes(host)) return refuse(`${host} is a cloud metadata host`);
    const allowed = this.options.allowedHosts;
    if (allowed.length > 0 && !allowed.some((p) => hostMatches(host, p))) {
      return refuse(`the host ${host} is not in VIGIL_GIT_ALLOWED_HOSTS (${allowed.join(', ')})`);
    }
    let addresses: string[];
    if (net.isIP(host)) addresses = [host];
    else {
      try {
        addresses = await this.lookup(host);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        return { allowed: false, permanent: false, reason: `The host ${host} of ${url.display} cannot be resolved (${code}).` };
      }
      if (addresses.length === 0) return { allowed: false, permanent: false, reason: `The host ${host} of ${url.display} resolves to no address.` };
    }
    for (const address of addresses) {
      const why = refusedAddress(address);
      if (why) return refuse(host === address ? why : `${host} resolves to ${why}`);
    }
    return { allowed: true, url, addresses };
  }
}
