import { promises as dns } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { alwaysRefused, describeAddress, METADATA_HOSTS, readAddress } from '../network/address-classes';
import { FeedRefusal } from '../../domain/enrichment/feed-refusal';

/**
 * Where a feed may be downloaded from (spec 1 §8.3, S1.8.3-54). Every address the host name
 * resolves to is checked, not only the first: a name answering one public and one private
 * address is refused. Addresses are classified by infrastructure/network/address-classes.ts, the
 * classifier the clone guard uses too (IPv6 forms carrying an IPv4 address are judged by it).
 * Public unicast is always allowed; private and loopback addresses only with the feed's own switch
 * (VIGIL_KEV_ALLOW_PRIVATE, VIGIL_EPSS_ALLOW_PRIVATE); link-local, cloud metadata (names and
 * addresses) and reserved addresses never, whatever the switch: a mirror on the local network is
 * a reason to open it, the instance's metadata service never is.
 */
export type { AddressClass } from '../network/address-classes';
export { classifyAddress } from '../network/address-classes';

export type Lookup = (host: string) => Promise<string[]>;

export const systemLookup: Lookup = async (host) => (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

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
  if (METADATA_HOSTS.includes(host.toLowerCase().replace(/\.$/, ''))) {
    throw new FeedRefusal('destination', `The feed host ${host} is a cloud metadata host; no feed is fetched from there, whatever ${rule.switchName} says.`);
  }
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
    const reading = readAddress(address);
    if (reading?.class === 'public' && !reading.metadata) continue;
    const what = reading ? describeAddress(reading) : 'not an address';
    if (!reading || alwaysRefused(reading)) {
      throw new FeedRefusal('destination', `The feed host ${host} resolves to ${address}, ${what}; no feed is fetched from there, whatever ${rule.switchName} says.`);
    }
    if (!rule.allowPrivate) {
      throw new FeedRefusal('destination', `The feed host ${host} resolves to ${address}, ${what}; set ${rule.switchName}=true to synchronise from a mirror there.`);
    }
  }
}
