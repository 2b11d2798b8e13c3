import { BlockList, isIP } from 'node:net';

/** IPv4 ranges no outgoing request (imports, later webhooks) may reach unless local targets are allowed. */
const LOCAL_V4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) LOCAL_V4.addSubnet(net, prefix, 'ipv4');

const LOCAL_V6 = new BlockList();
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64],
] as const) LOCAL_V6.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted quad folded in), or undefined. */
function hextets(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const part = (half: string | undefined) => (half ? half.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const groups = halves.length === 2 ? [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail] : head;
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * The IPv4 addresses an IPv6 address carries and that a network may route to: IPv4-compatible (::/96),
 * IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96, 64:ff9b:1::/48),
 * 6to4 (2002::/16) and Teredo (2001::/32: server and obfuscated client).
 */
function embeddedIpv4(groups: readonly number[]): string[] {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zeroTo = (end: number) => groups.slice(0, end).every((group) => group === 0);
  const found: string[] = [];
  if (zeroTo(6) || (zeroTo(5) && g5 === 0xffff) || (zeroTo(4) && g4 === 0xffff && g5 === 0)) found.push(v4(g6, g7));
  if (g0 === 0x64 && g1 === 0xff9b && (g2 === 1 || (g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0))) found.push(v4(g6, g7));
  if (g0 === 0x2002) found.push(v4(g1, g2));
  if (g0 === 0x2001 && g1 === 0) found.push(v4(g2, g3), v4(g6 ^ 0xffff, g7 ^ 0xffff));
  return found;
}

/**
 * True when `address` is loopback, private, link-local, multicast, reserved or unspecified, also when written as an
 * IPv6 address that embeds such an IPv4 address in any of the standard forms, in dotted or in hex notation.
 * Anything that is not an IP address counts as local (refused).
 */
export function isLocalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return LOCAL_V4.check(address, 'ipv4');
  if (family !== 6) return true;
  const groups = hextets(address);
  if (!groups) return true;
  if (embeddedIpv4(groups).some((inner) => LOCAL_V4.check(inner, 'ipv4'))) return true;
  return LOCAL_V6.check(address.replace(/%.*$/, ''), 'ipv6');
}
