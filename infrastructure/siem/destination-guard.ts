import { promises as dns, LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { alwaysRefused, describeAddress, METADATA_HOSTS, readAddress } from '../network/address-classes';

/**
 * Where the SIEM export may connect (spec 2 §2.8, §5): public addresses always; private and
 * loopback only with the installation setting siem_allow_private_destination (administrator
 * only); link-local, reserved and cloud metadata never (infrastructure/network/address-classes.ts,
 * the classifier of every guard). Checked at connect time on every address the name resolves to,
 * through the `lookup` hook of the socket itself, so the address checked is the address connected
 * to (no second resolution an attacker's DNS could answer differently).
 */
export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

export const PRIVATE_SWITCH = 'siem_allow_private_destination';

export function checkAddress(host: string, address: string, allowPrivate: boolean): void {
  const reading = readAddress(address);
  if (reading?.class === 'public' && !reading.metadata) return;
  const what = reading ? describeAddress(reading) : 'not an address';
  if (!reading || alwaysRefused(reading)) throw new DestinationRefused(`${host} resolves to ${address}, ${what}; the SIEM export never connects there.`);
  if (!allowPrivate) throw new DestinationRefused(`${host} resolves to ${address}, ${what}; an administrator sets ${PRIVATE_SWITCH} to true to send there.`);
}

/** Refuses metadata names and literal addresses before any connection (Node calls no lookup for a literal). */
export function checkHost(host: string, allowPrivate: boolean): void {
  if (METADATA_HOSTS.includes(host.toLowerCase().replace(/\.$/, ''))) throw new DestinationRefused(`${host} is a cloud metadata host; the SIEM export never connects there.`);
  if (ipaddr.isValid(host)) checkAddress(host, host, allowPrivate);
}

export type Resolve = (host: string) => Promise<LookupAddress[]>;
const systemResolve: Resolve = (host) => dns.lookup(host, { all: true, verbatim: true });

/** A socket `lookup` that resolves every address, refuses the connection if any is not allowed, and hands over the first. */
export function guardedLookup(allowPrivate: boolean, resolve: Resolve = systemResolve): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    resolve(hostname).then((addresses) => {
      if (addresses.length === 0) throw new DestinationRefused(`${hostname} resolves to no address.`);
      for (const a of addresses) checkAddress(hostname, a.address, allowPrivate);
      if (options?.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    }).catch((error: Error) => callback(error, '', 0));
  }) as LookupFunction;
}

/** For UDP (no connection to hook): every address checked, the first one answered; the datagrams go to that address. */
export async function resolveChecked(host: string, allowPrivate: boolean, resolve: Resolve = systemResolve): Promise<LookupAddress> {
  checkHost(host, allowPrivate);
  if (ipaddr.isValid(host)) return { address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 };
  const addresses = await resolve(host);
  if (addresses.length === 0) throw new DestinationRefused(`${host} resolves to no address.`);
  for (const a of addresses) checkAddress(host, a.address, allowPrivate);
  return addresses[0];
}
