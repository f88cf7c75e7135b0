import { promises as dns } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { FeedRefusal } from './feed-refusal';

/**
 * Where a feed may be downloaded from (spec 1 §8.3, S1.8.3-54). Every address the host name
 * resolves to is checked, not only the first: a name answering one public and one private
 * address is refused. Public unicast is always allowed; private, loopback and link-local
 * addresses only with the feed's own switch (VIGIL_KEV_ALLOW_PRIVATE, VIGIL_EPSS_ALLOW_PRIVATE);
 * unspecified, multicast, broadcast and reserved addresses never.
 */
export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local' | 'reserved';

export type Lookup = (host: string) => Promise<string[]>;

export const systemLookup: Lookup = async (host) => (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Classes the ALLOW_PRIVATE switch opens. */
const SWITCHABLE: ReadonlySet<AddressClass> = new Set(['private', 'loopback', 'link-local']);

const V4: Record<string, AddressClass> = {
  unicast: 'public', private: 'private', carrierGradeNat: 'private', loopback: 'loopback', linkLocal: 'link-local',
};
const V6: Record<string, AddressClass> = { unicast: 'public', uniqueLocal: 'private', loopback: 'loopback', linkLocal: 'link-local' };

export function classifyAddress(text: string): AddressClass {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(text);
  } catch {
    return 'reserved';
  }
  if (parsed.kind() === 'ipv4') return V4[(parsed as ipaddr.IPv4).range()] ?? 'reserved';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return classifyAddress(v6.toIPv4Address().toString());
  const range = v6.range();
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address: judge that one, so an
  // IPv6-only network reaches public feeds and never a private host through the translator.
  if (range === 'rfc6052') return classifyAddress(ipaddr.fromByteArray(v6.toByteArray().slice(12)).toString());
  if (range === '6to4') return classifyAddress(ipaddr.fromByteArray(v6.toByteArray().slice(2, 6)).toString());
  return V6[range] ?? 'reserved';
}

export interface DestinationRule {
  allowPrivate: boolean;
  /** The setting that opens private destinations, named in the refusal. */
  switchName: string;
  lookup?: Lookup;
}

/** Refuses (FeedRefusal 'destination') a URL whose scheme or any resolved address is not allowed. */
export async function checkDestination(url: URL, rule: DestinationRule): Promise<void> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FeedRefusal('destination', `Feeds are downloaded over http or https only, not ${url.protocol.replace(/:$/, '')}.`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (rule.lookup ?? systemLookup)(host);
    } catch (error) {
      throw new FeedRefusal('download', `The feed host ${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'}).`);
    }
    if (addresses.length === 0) throw new FeedRefusal('download', `The feed host ${host} resolves to no address.`);
  }
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind === 'public') continue;
    if (kind === 'reserved') throw new FeedRefusal('destination', `The feed host ${host} resolves to ${address}, a reserved address no feed is fetched from.`);
    if (!rule.allowPrivate) {
      throw new FeedRefusal('destination', `The feed host ${host} resolves to ${address}, a ${kind} address; set ${rule.switchName}=true to synchronise from a mirror there.`);
    }
    if (!SWITCHABLE.has(kind)) throw new FeedRefusal('destination', `The feed host ${host} resolves to ${address}, which is not allowed.`);
  }
}
