import ipaddr from 'ipaddr.js';

/**
 * The client address believed (spec 1 §8.3 VIGIL_TRUSTED_PROXIES): with no trusted proxies the
 * socket address; otherwise the rightmost X-Forwarded-For entry the list does not name, walking
 * left only through trusted hops.
 */
export function clientAddress(socketAddress: string | undefined, forwardedFor: string | undefined, trusted: readonly string[]): string {
  const socket = normalise(socketAddress ?? '');
  if (trusted.length === 0 || !forwardedFor || !isTrusted(socket, trusted)) return socket;
  const hops = forwardedFor.split(',').map((s) => normalise(s.trim())).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isTrusted(hops[i], trusted)) return hops[i];
  }
  return hops[0] ?? socket;
}

function normalise(address: string): string {
  try {
    const parsed = ipaddr.parse(address);
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address().toString();
    return parsed.toString();
  } catch {
    return address;
  }
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
