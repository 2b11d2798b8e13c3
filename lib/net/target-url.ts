import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { invalid } from '../errors.js';
import { isLocalAddress } from './address-guard.js';

/**
 * A hook's target (a repository's hook or an app's webhook): http or https without credentials, and unless local
 * targets are allowed, not a host that resolves (now) to a loopback, private or link-local address. It is checked
 * again at every delivery.
 */
export async function hookTargetUrl(value: unknown, allowLocalNetwork: boolean): Promise<string> {
  if (typeof value !== 'string' || !value.trim()) throw invalid('url is required');
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw invalid('url must be an http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('url must be an http or https URL');
  if (url.username || url.password) throw invalid('url must not contain credentials; use a secret');
  if (url.href.length > 2048) throw invalid('url must be at most 2048 characters');
  if (!allowLocalNetwork) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : await dns.lookup(host, { all: true, verbatim: true }).then((found) => found.map((entry) => entry.address), () => []);
    if (addresses.some(isLocalAddress)) throw invalid('url points to a local or private address');
  }
  return url.href;
}
