import ipaddr from 'ipaddr.js';

/**
 * The client address believed (spec 1 §8.3 VIGIL_TRUSTED_PROXIES): with no trusted proxies the
 * socket address; otherwise the rightmost X-Forwarded-For entry the list does not name, walking
 * left only through trusted hops. Entries that are not IP addresses are skipped (issue #17): the
 * header is the client's to write, and whatever is believed lands in every event's metadata and
 * the audit chain.
 */
export function clientAddress(socketAddress: string | undefined, forwardedFor: string | undefined, trusted: readonly string[]): string {
  const socket = ipAddress(socketAddress ?? '') ?? socketAddress ?? '';
  if (trusted.length === 0 || !forwardedFor || !isTrusted(socket, trusted)) return socket;
  const hops = forwardedFor.split(',').map((s) => ipAddress(s.trim())).filter((a): a is string => a !== null);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isTrusted(hops[i], trusted)) return hops[i];
  }
  return hops[0] ?? socket;
}

/**
 * An IP address in its canonical text, or null: dotted-quad IPv4 (not the shorthand forms
 * "127.1" or "0x7f.0.0.1"), IPv6 (an IPv4-mapped one as IPv4, without a zone, which means
 * nothing beyond the proxy), each possibly with a port as some proxies write it
 * ("192.0.2.1:4711", "[2001:db8::1]:4711").
 */
export function ipAddress(text: string): string | null {
  const withPort = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text) ?? /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(text);
  const bare = withPort ? withPort[1] : text;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare).toString();
  if (!ipaddr.IPv6.isValid(bare)) return null;
  const v6 = ipaddr.IPv6.parse(bare);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return new ipaddr.IPv6(v6.parts).toString();
}

function isTrusted(address: string, trusted: readonly string[]): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  return trusted.some((entry) => {
    try {
      if (entry.includes('/')) {
        const [range, bits] = ipaddr.parseCIDR(entry);
        return parsed.kind() === range.kind() && parsed.match([range, bits] as [ipaddr.IPv4 | ipaddr.IPv6, number]);
      }
      return ipaddr.parse(entry).toString() === parsed.toString();
    } catch {
      return false;
    }
  });
}

/** Bearer failures count per address, per /64 for IPv6 (spec 1 §5). */
export function failureBucket(address: string): string {
  try {
    const parsed = ipaddr.parse(address);
    if (parsed.kind() === 'ipv6') return `${(parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16)).join(':')}::/64`;
  } catch {
    // not an IP: count it as it is
  }
  return address;
}
