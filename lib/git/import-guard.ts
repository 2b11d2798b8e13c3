import { promises as dns } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { invalid } from '../errors.js';

/** Addresses an import must not reach unless local imports are allowed (SSRF guard). */
const LOCAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) LOCAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64],
] as const) LOCAL.addSubnet(net, prefix, 'ipv6');

/** True when `address` is loopback, private, link-local, multicast, reserved or unspecified. */
export function isLocalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return LOCAL.check(address, 'ipv4');
  if (family !== 6) return true;
  const lower = address.toLowerCase();
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible and NAT64 forms carry an IPv4 address inside.
  const embedded = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (embedded) return LOCAL.check(embedded[1]!, 'ipv4');
  const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (mappedHex) {
    const high = parseInt(mappedHex[1]!, 16);
    const low = parseInt(mappedHex[2]!, 16);
    return LOCAL.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  return LOCAL.check(address, 'ipv6');
}

/** A checked import source: the URL to give git and the `-c` options that pin it. */
export interface ImportSource {
  url: string;
  gitConfig: string[];
}

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443', 'git:': '9418' };

/**
 * Checks a clone_url for import: http, https or git only, no credentials in it, and (unless
 * `allowLocal`) a host that resolves only to public addresses. The address checked is the one git
 * uses: pinned with `http.curloptResolve` for http(s) and written into the URL for git://, so a
 * second DNS answer cannot point git elsewhere. Redirects are never followed.
 */
export async function checkImportSource(raw: string, allowLocal: boolean): Promise<ImportSource> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid('clone_url is not a valid URL');
  }
  if (!(url.protocol in DEFAULT_PORT)) throw invalid('clone_url must be an http, https or git URL');
  if (url.username || url.password) throw invalid('clone_url must not contain credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw invalid('clone_url has no host');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await dns.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      throw invalid('clone_url host cannot be resolved');
    }
  }
  if (addresses.length === 0) throw invalid('clone_url host cannot be resolved');
  if (!allowLocal && addresses.some(isLocalAddress)) throw invalid('clone_url points to a local or private address');
  const address = addresses[0]!;
  const bracketed = isIP(address) === 6 ? `[${address}]` : address;
  const port = url.port || DEFAULT_PORT[url.protocol]!;
  const gitConfig = [
    '-c', 'http.followRedirects=false',
    '-c', 'protocol.allow=never',
    '-c', 'protocol.http.allow=always',
    '-c', 'protocol.https.allow=always',
    '-c', 'protocol.git.allow=always',
    '-c', 'credential.helper=',
    '-c', 'core.askPass=/bin/false',
  ];
  if (url.protocol === 'git:') {
    url.hostname = bracketed;
    return { url: url.href, gitConfig };
  }
  if (!isIP(host)) gitConfig.push('-c', `http.curloptResolve=${host}:${port}:${bracketed}`);
  return { url: url.href, gitConfig };
}
