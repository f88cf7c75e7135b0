import ipaddr from 'ipaddr.js';

/**
 * What kind of destination an IP address is: the one classifier behind every guard that decides
 * where Vigil connects (the clone guard, infrastructure/scanning/clone-guard.ts, and the feeds'
 * destination guard, infrastructure/feeds/destination-guard.ts). The guards differ in what they let
 * through; none lets through a link-local, reserved or cloud metadata address (alwaysRefused).
 *
 * An IPv6 address that carries an IPv4 address is judged by that IPv4 address, since that is where
 * a translator, tunnel or dual-stack socket delivers the connection:
 * IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, IPv4-compatible ::/96 (deprecated),
 * NAT64 64:ff9b::/96, NAT64 local-use 64:ff9b:1::/48 (every layout RFC 6052 allows for its prefix
 * length is read, the strictest reading decides), 6to4 2002::/16 (bits 16-47) and Teredo 2001::/32
 * (server bits 32-63, client the last 32 bits inverted; the stricter of the two decides).
 */
export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local' | 'reserved';

export interface AddressReading {
  class: AddressClass;
  /** A cloud metadata address, or an IPv6 form carrying one. */
  metadata: boolean;
  /** The range's name for messages ("link-local", "IETF protocol assignments", "multicast"). */
  range: string;
  /** For an IPv6 form carrying an IPv4 address: the form and the IPv4 address that was judged. */
  carried: { form: string; ipv4: string } | null;
}

/** Cloud metadata services (AWS, GCP, Azure, Alibaba, OCI, ECS task metadata); refused whatever the class. */
export const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200', '168.63.129.16', '192.0.0.192',
];
/** Names of metadata services, refused before any lookup. */
export const METADATA_HOSTS: readonly string[] = [
  'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.tencentyun.com',
];

type Range = [cidr: string, kind: AddressClass, name: string];

/** Special-purpose IPv4 ranges (IANA registry); everything else is public. */
const V4_RANGES: readonly Range[] = [
  ['0.0.0.0/8', 'reserved', 'unspecified, "this network"'],
  ['10.0.0.0/8', 'private', 'private'],
  ['100.64.0.0/10', 'private', 'shared address space, carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback', 'loopback'],
  ['169.254.0.0/16', 'link-local', 'link-local'],
  ['172.16.0.0/12', 'private', 'private'],
  ['192.0.0.0/24', 'reserved', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'reserved', 'documentation'],
  ['192.31.196.0/24', 'reserved', 'AS112 DNS'],
  ['192.52.193.0/24', 'reserved', 'AMT relays'],
  ['192.88.99.0/24', 'reserved', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private', 'private'],
  ['192.175.48.0/24', 'reserved', 'AS112 DNS'],
  ['198.18.0.0/15', 'reserved', 'benchmarking'],
  ['198.51.100.0/24', 'reserved', 'documentation'],
  ['203.0.113.0/24', 'reserved', 'documentation'],
  ['224.0.0.0/4', 'reserved', 'multicast'],
  ['240.0.0.0/4', 'reserved', 'reserved for future use, broadcast'],
];

/** Special-purpose IPv6 ranges once the forms carrying IPv4 are read; everything else is public. */
const V6_RANGES: readonly Range[] = [
  ['::/128', 'reserved', 'unspecified'],
  ['::1/128', 'loopback', 'loopback'],
  ['100::/64', 'reserved', 'discard-only'],
  ['2001::/23', 'reserved', 'IETF protocol assignments'],
  ['2001:db8::/32', 'reserved', 'documentation'],
  ['2620:4f:8000::/48', 'reserved', 'AS112 DNS'],
  ['3fff::/20', 'reserved', 'documentation'],
  ['5f00::/16', 'reserved', 'segment routing'],
  ['fc00::/7', 'private', 'unique local'],
  ['fe80::/10', 'link-local', 'link-local'],
  ['fec0::/10', 'reserved', 'deprecated site-local'],
  ['ff00::/8', 'reserved', 'multicast'],
];

const parsedRanges = <T extends ipaddr.IPv4 | ipaddr.IPv6>(ranges: readonly Range[]) =>
  ranges.map(([cidr, kind, name]) => ({ cidr: ipaddr.parseCIDR(cidr) as [T, number], kind, name }));
const V4 = parsedRanges<ipaddr.IPv4>(V4_RANGES);
const V6 = parsedRanges<ipaddr.IPv6>(V6_RANGES);
const METADATA = new Set(METADATA_ADDRESSES.map((a) => ipaddr.parse(a).toNormalizedString()));

/** Strictness, to pick among several readings of one address: metadata above every class. */
const RANK: Record<AddressClass, number> = { public: 0, private: 1, loopback: 2, 'link-local': 3, reserved: 4 };
const strictness = (r: AddressReading): number => (r.metadata ? 5 : RANK[r.class]);

/** The address's reading, or null when the text is not an IP address. */
export function readAddress(text: string): AddressReading | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(text);
  } catch {
    return null;
  }
  return ip.kind() === 'ipv4' ? readV4(ip as ipaddr.IPv4, null) : readV6(ip as ipaddr.IPv6);
}

/** The class alone; text that is no address reads as reserved. */
export function classifyAddress(text: string): AddressClass {
  return readAddress(text)?.class ?? 'reserved';
}

/** No guard connects there, whatever its switches: link-local, reserved and cloud metadata addresses. */
export function alwaysRefused(reading: AddressReading): boolean {
  return reading.metadata || reading.class === 'link-local' || reading.class === 'reserved';
}

/** "a loopback address", "the 6to4 form of 169.254.169.254, a cloud metadata address (link-local)". */
export function describeAddress(reading: AddressReading): string {
  const what =
    reading.metadata ? `a cloud metadata address${reading.class === 'public' ? '' : ` (${reading.range})`}`
    : reading.class === 'reserved' ? `a reserved address (${reading.range})`
    : `a ${reading.class} address`;
  return reading.carried ? `the ${reading.carried.form} form of ${reading.carried.ipv4}, ${what}` : what;
}

function readV4(ip: ipaddr.IPv4, form: string | null): AddressReading {
  const range = V4.find((r) => ip.match(r.cidr));
  const ipv4 = ip.toString();
  return {
    class: range?.kind ?? 'public',
    metadata: METADATA.has(ip.toNormalizedString()),
    range: range?.name ?? 'public',
    carried: form ? { form, ipv4 } : null,
  };
}

function readV6(ip: ipaddr.IPv6): AddressReading {
  const carried = carriedReadings(ip);
  if (carried.length > 0) return carried.reduce((a, b) => (strictness(b) > strictness(a) ? b : a));
  const range = V6.find((r) => ip.match(r.cidr));
  return { class: range?.kind ?? 'public', metadata: METADATA.has(ip.toNormalizedString()), range: range?.name ?? 'public', carried: null };
}

const within = (ip: ipaddr.IPv6, cidr: string): boolean => ip.match(ipaddr.parseCIDR(cidr) as [ipaddr.IPv6, number]);
const v4 = (bytes: number[]): ipaddr.IPv4 => new ipaddr.IPv4(bytes);

/** The readings of the IPv4 address an IPv6 form carries; none for any other IPv6 address. */
function carriedReadings(ip: ipaddr.IPv6): AddressReading[] {
  const b = ip.toByteArray();
  const last = b.slice(12, 16);
  if (within(ip, '::ffff:0:0/96')) return [readV4(v4(last), 'IPv4-mapped')];
  if (within(ip, '::ffff:0:0:0/96')) return [readV4(v4(last), 'IPv4-translated')];
  // ::/96 less :: and ::1, which are IPv6's own unspecified and loopback addresses.
  if (within(ip, '::/96') && !within(ip, '::/127')) return [readV4(v4(last), 'IPv4-compatible')];
  if (within(ip, '64:ff9b::/96')) return [readV4(v4(last), 'NAT64')];
  if (within(ip, '64:ff9b:1::/48')) return localUseNat64(b).map((bytes) => readV4(v4(bytes), 'NAT64 local-use'));
  if (within(ip, '2002::/16')) return [readV4(v4(b.slice(2, 6)), '6to4')];
  if (within(ip, '2001::/32')) {
    return [readV4(v4(b.slice(4, 8)), 'Teredo (server)'), readV4(v4(last.map((x) => x ^ 0xff)), 'Teredo (client)')];
  }
  return [];
}

/**
 * 64:ff9b:1::/48 is for local prefixes of /48, /56, /64 or /96 (RFC 8215, RFC 6052 §2.2): the IPv4
 * bytes sit around the reserved u octet (byte 8), the suffix after them is zero. Every layout whose
 * u octet and suffix are zero is a candidate; 0.0.0.0 is dropped when another reading remains
 * (a /96 reading of a shorter layout's address).
 */
function localUseNat64(b: number[]): number[][] {
  const layouts: Array<[bytes: number[], suffixFrom: number]> = [
    [[6, 7, 9, 10], 11],
    [[7, 9, 10, 11], 12],
    [[9, 10, 11, 12], 13],
  ];
  const zero = (from: number) => b.slice(from).every((x) => x === 0);
  const readings = layouts.filter(([, from]) => b[8] === 0 && zero(from)).map(([at]) => at.map((i) => b[i]));
  readings.push(b.slice(12, 16));
  const nonZero = readings.filter((r) => r.some((x) => x !== 0));
  return nonZero.length > 0 ? nonZero : readings;
}
